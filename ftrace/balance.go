package ftrace

import "fmt"

// Mark is where a task's shadow stack stood at one moment: its
// curr_ret_stack and, when the stack was not empty, the frames on it (so a
// later pop below the mark can still be named after the words were reused).
type Mark struct {
	Task   *Task
	Curr   int
	Frames []ShadowFrame
}

// Marks records every task's curr_ret_stack now (kernel/trace/fgraph.c,
// v6.11+: current->curr_ret_stack), with the frames of the tasks whose stack
// is not empty.
func (g *Graph) Marks() []Mark {
	out := make([]Mark, 0, len(g.tasks))
	for _, t := range g.tasks {
		m := Mark{Task: t, Curr: t.Curr}
		if t.Curr > 0 {
			m.Frames, _ = g.stackOf(t).Walk(false)
		}
		out = append(out, m)
	}
	return out
}

// Unbalanced is a task's shadow stack that is not back at its mark: the
// frames pushed and never popped (Left) or popped once too often (Popped),
// newest first.
type Unbalanced struct {
	Task       string
	Start, End int // curr_ret_stack at the mark and now
	Left       bool
	Frames     []ShadowFrame
	// Users[i] names the users of Frames[i]: the fgraph_ops whose bit the
	// frame's BITMAP meta word holds (their retfunc would have run; bit 0
	// is always set, set_bitmap(..., bitmap | BIT(0)), kernel/trace/fgraph.c
	// v6.11+, so slot 0's user is named whether or not it asked).
	Users [][]string
	// Err is set when the words between the mark and now no longer decode
	// as frames (they were overwritten): Frames is then partial.
	Err error
}

func (u Unbalanced) String() string {
	what := "popped twice"
	if u.Left {
		what = "left behind"
	}
	s := fmt.Sprintf("task %s: curr_ret_stack %d, was %d: %d frame(s) %s", u.Task, u.End, u.Start, len(u.Frames), what)
	if u.Err != nil {
		s += fmt.Sprintf(" (%v)", u.Err)
	}
	return s
}

// Currs appends every task's curr_ret_stack, in task order, to dst.
func (g *Graph) Currs(dst []int) []int {
	for _, t := range g.tasks {
		dst = append(dst, t.Curr)
	}
	return dst
}

// Balance compares the tasks' curr_ret_stack at some later moment (ends,
// as Currs gave them) with marks (Marks): a task whose curr_ret_stack moved
// gives one Unbalanced. Frames above the mark are read from the stack now
// (a frame left behind stays intact until a later pop below it); frames
// popped below it come from the mark's copy. A task created after the
// marks is not compared.
func (g *Graph) Balance(marks []Mark, ends []int) []Unbalanced {
	var out []Unbalanced
	for i, m := range marks {
		if i >= len(ends) || ends[i] == m.Curr {
			continue
		}
		t, end := m.Task, ends[i]
		u := Unbalanced{Task: t.Name, Start: m.Curr, End: end, Left: end > m.Curr}
		if u.Left {
			s := g.stackOf(t)
			s.Curr = end
			fs, err := s.Walk(false)
			for _, f := range fs {
				if f.Base < m.Curr {
					break
				}
				u.Frames = append(u.Frames, f)
			}
			u.Err = err
		} else {
			for _, f := range m.Frames {
				if f.Base < end {
					break
				}
				u.Frames = append(u.Frames, f)
			}
		}
		for _, f := range u.Frames {
			u.Users = append(u.Users, g.UsersOf(f.Meta.Bitmap))
		}
		out = append(out, u)
	}
	return out
}

// UsersOf names the registered users whose fgraph_array index is set in
// bitmap ("stub" for a slot freed since).
func (g *Graph) UsersOf(bitmap uint16) []string {
	var out []string
	for i := 0; i < ArraySize; i++ {
		if bitmap&(1<<i) == 0 {
			continue
		}
		if o := g.array[i]; o != nil {
			out = append(out, o.Name)
		} else {
			out = append(out, "stub")
		}
	}
	return out
}

func (g *Graph) stackOf(t *Task) ShadowStack {
	return ShadowStack{Mem: g.mem, Addr: t.Stack, Curr: t.Curr, FPTest: g.fpTest}
}
