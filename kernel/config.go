package kernel

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"regexp"
	"sort"
	"strings"
)

// Config is a set of CONFIG options (and other preprocessor names such as
// CC_USING_HOTPATCH) with their .config values: "y", "m", a number or a
// quoted string.
type Config map[string]string

var (
	configSet   = regexp.MustCompile(`^([A-Za-z_][A-Za-z0-9_]*)=(.*)$`)
	configUnset = regexp.MustCompile(`^# ([A-Za-z_][A-Za-z0-9_]*) is not set$`)
)

// ParseConfig reads a kernel .config: "CONFIG_X=y", "=m", "=123", "=\"s\"",
// "# CONFIG_X is not set" and comments. name is used in errors.
func ParseConfig(name string, data []byte) (Config, error) {
	c := Config{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	for n := 1; sc.Scan(); n++ {
		l := strings.TrimSpace(sc.Text())
		if l == "" {
			continue
		}
		if m := configUnset.FindStringSubmatch(l); m != nil {
			delete(c, m[1])
			continue
		}
		if strings.HasPrefix(l, "#") {
			continue
		}
		m := configSet.FindStringSubmatch(l)
		if m == nil {
			return nil, fmt.Errorf("%s:%d: not a .config line (want CONFIG_NAME=value): %q", name, n, l)
		}
		if m[2] == "n" {
			delete(c, m[1])
			continue
		}
		c[m[1]] = m[2]
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return c, nil
}

// ReadConfig reads a .config file.
func ReadConfig(file string) (Config, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("--config: %w", err)
	}
	return ParseConfig(file, data)
}

var defineName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// Options are the user's choices on top of a base config: -D NAME[=VALUE]
// and -U NAME, in order.
type Options struct {
	Define []string
	Undef  []string
}

// Apply returns base with the options applied (base is not changed).
func (o Options) Apply(base Config) (Config, error) {
	c := Config{}
	for k, v := range base {
		c[k] = v
	}
	for _, d := range o.Define {
		k, v, has := strings.Cut(d, "=")
		if !defineName.MatchString(k) {
			return nil, fmt.Errorf("-D %q: want NAME or NAME=VALUE (e.g. -D CONFIG_FRAME_POINTER)", d)
		}
		if !has {
			v = "y"
		}
		c[k] = v
	}
	for _, u := range o.Undef {
		if !defineName.MatchString(u) {
			return nil, fmt.Errorf("-U %q: want a NAME (e.g. -U CONFIG_DYNAMIC_FTRACE)", u)
		}
		delete(c, u)
	}
	return c, nil
}

// Defines turns the config into preprocessor defines as the kernel's
// include/generated/autoconf.h does: y -> NAME 1, m -> NAME_MODULE 1,
// other values as they are.
func (c Config) Defines() map[string]string {
	out := map[string]string{}
	for k, v := range c {
		switch v {
		case "y":
			out[k] = "1"
		case "m":
			out[k+"_MODULE"] = "1"
		default:
			out[k] = v
		}
	}
	return out
}

// Names lists the options, sorted.
func (c Config) Names() []string {
	var out []string
	for k := range c {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// String renders the options as .config lines.
func (c Config) String() string {
	var b strings.Builder
	for _, k := range c.Names() {
		fmt.Fprintf(&b, "%s=%s\n", k, c[k])
	}
	return b.String()
}
