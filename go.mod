module trampemu

go 1.26.8

require golang.org/x/arch v0.33.0
