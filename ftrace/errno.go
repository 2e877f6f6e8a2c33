package ftrace

import "fmt"

// Errno is a kernel error code, returned wrapped with the call that failed.
type Errno int

// The error codes of the registration APIs (include/uapi/asm-generic/errno-base.h).
const (
	ENOENT Errno = 2
	E2BIG  Errno = 7
	ENOMEM Errno = 12
	EBUSY  Errno = 16
	EEXIST Errno = 17
	EINVAL Errno = 22
	ENOSPC Errno = 28
)

func (e Errno) Error() string {
	switch e {
	case ENOENT:
		return "-ENOENT"
	case E2BIG:
		return "-E2BIG"
	case ENOMEM:
		return "-ENOMEM"
	case EBUSY:
		return "-EBUSY"
	case EEXIST:
		return "-EEXIST"
	case EINVAL:
		return "-EINVAL"
	case ENOSPC:
		return "-ENOSPC"
	}
	return fmt.Sprintf("-errno(%d)", int(e))
}
