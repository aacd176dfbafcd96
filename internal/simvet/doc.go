// Package simvet is rollnet-vet's analyzer: it reports code that can make
// a rollback simulation compute different states on different peers, or
// on the same peer after a rollback. Use it through cmd/rollnet-vet, or
// add Analyzer to a multichecker of your own.
//
// # What is a simulation
//
// The analyzer finds the simulation functions itself:
//
//   - the simulate argument of every constructor in its table (session's
//     New and NewSyncTest, p2p's New and NewSpectator, replay's NewReplayer,
//     authority's NewHost and NewClient): a function, a method value, a
//     function literal, a local variable assigned one, or a call that
//     builds one (every function named in the argument counts);
//   - every function whose doc comment holds //rollnet:simulate, and the
//     functions passed as arguments to it (a builder like
//     SimulateCloud(MulAdd) makes MulAdd part of the simulation);
//   - the functions that build the state a session, host or client
//     starts from: the argument of SetInitialState, and what is assigned
//     through *x.State() (every function the expression names, and the
//     expression itself);
//   - then everything those reach within the module: every function or
//     method they call or take as a value; calls through a function value
//     (a variable, a package-level table, a struct field, a parameter of
//     an unexported function) when everything the package assigns to it
//     is a function it can name; calls through an interface into every
//     implementation the module declares in the packages it sees.
//
// # The rules
//
// Inside a simulation it reports, by category:
//
//   - maprange: a range over a map, or over maps.Keys, Values or All;
//   - wallclock: time.Now, Since, Until, After, AfterFunc, Tick, Sleep,
//     timers and tickers;
//   - io: anything of os, os/exec, os/signal, os/user, io/ioutil, syscall,
//     net and net/..., golang.org/x/sys (the environment, files, network);
//   - random: math/rand and math/rand/v2's top-level functions (not a
//     Rand made with New from a seed in the state), crypto/rand;
//   - concurrency: go statements, sends, receives, select, ranges over a
//     channel, close;
//   - fma: a float multiply feeding an add or subtract without an
//     explicit conversion, with the conversion as its suggested fix. This
//     follows cmd/compile's rules (ssa/_gen/ARM64.rules, PPC64.rules,
//     S390X.rules, RISCV64.rules, and AMD64.rules with GOAMD64=v3): they
//     fuse (F)ADD and (F)SUB with an (F)MUL (or a negated one) operand of
//     the same float type, whatever else uses the product, across
//     statements since SSA has no variables; an explicit conversion
//     float64(x*y) compiles to Round64F, which ARM64 lowers to a
//     barrier (LoweredRound64F) and nothing fuses through. So it reports
//     x*y + z, z - x*y, -x*y + z, (x*y) - z, z += x*y, a local assigned
//     x*y and later added, and the call of a function returning a bare
//     x*y (inlined, its product fuses too); it does not report a
//     constant product (folded), integer arithmetic, or a quotient;
//   - fused: a line the compiler itself turned into a fused multiply-add
//     (see below), reported with the functions that reach it and the
//     product to convert;
//   - pool, address: sync.Pool's Get and Put (which object comes back
//     depends on the garbage collector), a pointer converted to an
//     integer (an address: a hash or an order built on it differs between
//     peers), a range over a map keyed by pointers; hash/maphash's seed
//     is random per process (random);
//   - global: a write to a package-level variable (outside init), and a
//     read of one that something writes outside init (in its own
//     package, or in the package being checked);
//   - unsafe, reflect, dynamic (warnings): unsafe's functions and
//     unsafe.Pointer (not Sizeof, Alignof, Offsetof), anything of reflect,
//     method calls through an interface the module does not implement,
//     and calls through a function value assigned something it cannot
//     name (a parameter of an exported function, a call's result, another
//     package's variable): one warning per call;
//   - math (warning): math's transcendental functions (Sin, Atan2, Exp,
//     Pow, Hypot, ...), which may round differently on another
//     architecture; package fixed is the replacement. Sqrt, Abs, Floor
//     and the like are exact everywhere and allowed;
//   - state: at every constructor call (and replay.NewRecorder's), the
//     state type parameter is checked like rollback.CheckType checks it at
//     run time: fields of int, uint, uintptr, pointers, slices, maps,
//     strings, channels, funcs and interfaces, compiler padding (amd64's
//     layout, the strictest of the targets: a type without padding there
//     has none on 386 or arm), and a zero size.
//
// # Informational findings
//
// Package state the simulation cannot carry from one frame to the next
// is set apart, reported only with -info: a variable the simulation
// writes and never reads (a profiling counter), one that every function
// using it clears first (v = v[:0], v = nil, clear(v): scratch), and one
// written only under if v == nil (or a package-level flag) or in a
// sync.Once's Do (lazy setup from constants).
//
// # Fused multiply-adds from the compiler
//
// The source rule sees a product and an add in one function. Once the
// compiler inlines small helpers (v.Mult(k).Add(w), Vec{v.X*k, ...}.Add,
// a product local passed to a small sum), the multiply of one meets the
// add of another, and only the compiler knows. So each package of the
// module that may multiply a float is also compiled for the targets that
// fuse (-fused-arch, arm64 and riscv64 by default; ppc64le and s390x on
// request), with go list -export -test -gcflags=<path>=-S, which compiles
// without linking; the analyzer reads the fused instructions (FMADDD,
// FMSUBD, FNMADDD, FNMSUBD and their single-precision and other targets'
// forms), the innermost source line of each (an inlined helper's line),
// and the compiled function it is in. A fused line in a function the
// simulation reaches is reported, unless the source rule already reports
// that line: at the line if it is in the package, else at each call of
// the inlined helper whose product it traces, with the product to convert
// (the suggested fix when it is in the package). Run standalone, one go
// command per target compiles the whole module; as go vet's -vettool, one
// per package. The first run compiles the module's dependencies for each
// target (minutes); the build cache replays the compiler's output after.
// -no-compiler keeps the source rule alone.
//
// # Silencing a finding
//
// A //rollnet:ok comment followed by a reason silences the findings on
// its line and on the line below it; in a function's doc comment, those
// of the whole function. Without a reason it is itself reported.
// -ignore-ok reports the silenced findings too, to audit them.
//
// # Across packages: facts
//
// The analyzer is modular (go/analysis facts), not a whole-program pass:
// a package is analyzed after its imports, and exports, for each of its
// functions, the findings it reaches (at most 8, module-relative
// positions), whether it returns a bare float product, and which of its
// package-level variables it writes. A simulation found in package app
// that calls lib.Tick is reported at the call, with the place in lib:
//
//	app.go:12:3: lib/lib.go:11:12: range over map ... (reached through lib.Tick)
//
// Mark lib.Tick //rollnet:simulate to have each finding reported at its
// own line in lib. Facts were chosen over a whole-program pass because
// they are the only cross-package mechanism go vet's -vettool protocol
// offers (unitchecker analyzes one package at a time, caching each
// package's facts in the build cache), so the same analyzer runs as
// `go vet -vettool` and standalone, incrementally, at the cost of
// reporting a simulation's callees in other packages at the call rather
// than at their lines.
//
// The limits: a simulation that arrives through a struct field, a
// parameter or a function value is not found (mark it //rollnet:simulate);
// an interface's implementations in packages this one does not import are
// not seen;
// a write to a package-level variable in a package that imports the
// variable's package is seen only when that package is checked.
package simvet
