// Command trampemu runs Linux ftrace trampolines (x86-64, s390x, arm64) on the
// Unicorn emulator with Go standing in for the kernel, checks what they
// save and measures what they cost. Subcommands:
//
//	trampemu report  [--arch A] [--calls N] [--exact=false] [--emu-calls N] [--emu-repeats N] [--native BUDGET] [--tree DIR] [--json] [--out DIR]
//	trampemu check   --arch A [--variant NAME ...] [--file F.S --role entry|exit] [--scenario S] [--workload W ...] [--calls N] [--json]
//	trampemu trace   --arch A (--variant NAME | --file F.S --role entry|exit) [--pair NAME] [--workload W] [--scenario S] [--all] [--json | --format text|json|function_graph]
//	trampemu scenario list | run NAME --arch A [--header ENC] [--json | --format text|json|function_graph]
//	trampemu mutate  --arch A|all [--variant NAME ...] [--file F.S --role entry|exit] [--calls N] [--json]
//	trampemu native  [--variant NAME ...] [--file F.S --role entry|exit] [--pair NAME] [--compare A,B ...] [--budget D] [--target NS] [--format table|bench] [--json]
//	trampemu asm     --arch A [--variant NAME | FILE.S] [-D NAME[=VALUE] ...]
//	trampemu list    [--arch A]
//	trampemu version
//
// Exit status: 0 success / no error finding / --help; 1 error findings
// (check) or regressions (report); 2 bad usage or input, with a one-line
// message "trampemu CMD: ..." first on stderr.
//
// The command tree is github.com/spf13/cobra with spf13/pflag flags
// (main.go: one command entry per subcommand, its setup declaring the
// flags and returning what runs): GNU long flags with short forms (-a
// --arch, -f --file, -r --role, -t --tree, -w --workload, -s --scenario,
// -n --calls, -o --out, -D --define, -U --undef), and the flag package's
// single-dash long flags (-arch) still accepted (gnuArgs). `trampemu
// completion bash|zsh|fish` prints a shell's completion script (flag
// values complete too: complete.go); the hidden `trampemu gendocs DIR`
// (make docs) writes docs/cli/*.md and docs/man/*.1 from the tree.
package main
