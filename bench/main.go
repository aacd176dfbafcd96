package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"time"
)

func main() {
	passes := flag.Int("passes", 5, "passes over the benchmarks, each row's benchmark next to its baseline; min and median are reported")
	benchtime := flag.Duration("benchtime", 100*time.Millisecond, "each benchmark's -test.benchtime in a pass")
	bound := flag.Duration("bound", 15*time.Minute, "the whole run's time bound: passes stop, and the catch-up is cut, so that it ends by then")
	filter := flag.String("bench", "", "measure only the rows whose name or benchmark matches this regexp (and no catch-up); the JSON is not written")
	out := flag.String("o", "bench/latest.json", "where to write the JSON report (empty: nowhere)")
	catchFrames := flag.Int("catchup", 36000, "frames of a two-player match over loopback WebRTC that a fresh spectator and a fresh rejoiner catch up on, after the benchmarks (0: none)")
	catchSteps := flag.Int("catchup-steps", 0, "the spectator's SpectatorConfig.CatchUp (0: the session's default)")
	catchFast := flag.Int("catchup-fastforward", 0, "the spectator's SpectatorConfig.FastForward (0: the session's default)")
	catchThresholds := flag.String("catchup-sendthreshold", "0", "comma-separated webrtc.Tuning.SendThreshold values, one catch-up run each (0: the transport's default)")
	catchRejoin := flag.Bool("catchup-rejoin", true, "a rejoiner catches up after the spectator")
	catchOnly := flag.Bool("catchup-only", false, "run the catch-up only: no benchmarks, no JSON")
	hitchPlot := flag.String("hitchplot", "", "write an SVG of drawn displacement per frame, paced against on arrival, to this file, and run nothing else")
	transports := flag.Bool("transports", true, "after the catch-up, measure QUIC beside WebRTC on loopback: bytes on the wire per input datagram, dial to first datagram and to first host state, host CPU per client per tick")
	markdown := flag.String("markdown", "", "print the README's measurements table from this JSON report (bench/latest.json), and run nothing else")
	flag.Usage = func() {
		fmt.Fprintf(flag.CommandLine.Output(), "usage: go run ./bench [flags]\n\nThe rows measured are declared in bench/rows.go.\n\n")
		flag.PrintDefaults()
	}
	transportClientsMain() // the host-CPU figure's clients run as a child of this binary
	flag.Parse()
	if flag.NArg() > 0 {
		fmt.Fprintf(os.Stderr, "bench: unexpected arguments %q: the packages measured are those of bench/rows.go\n", flag.Args())
		os.Exit(2)
	}
	if *hitchPlot != "" {
		if err := writeHitchPlot(*hitchPlot); err != nil {
			fmt.Fprintln(os.Stderr, "bench:", err)
			os.Exit(1)
		}
		return
	}
	if *markdown != "" {
		if err := printMarkdown(os.Stdout, *markdown); err != nil {
			fmt.Fprintln(os.Stderr, "bench:", err)
			os.Exit(1)
		}
		return
	}
	if *passes < 1 || *benchtime <= 0 || *bound <= 0 {
		fmt.Fprintln(os.Stderr, "bench: -passes, -benchtime and -bound must be positive")
		os.Exit(2)
	}
	var re *regexp.Regexp
	if *filter != "" {
		var err error
		if re, err = regexp.Compile(*filter); err != nil {
			fmt.Fprintf(os.Stderr, "bench: -bench: %v\n", err)
			os.Exit(2)
		}
		*catchFrames, *out = 0, ""
	}
	var catches []catchConfig
	for _, th := range strings.Split(*catchThresholds, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(th))
		if err != nil || n < 0 {
			fmt.Fprintf(os.Stderr, "bench: -catchup-sendthreshold %q: not a byte count\n", th)
			os.Exit(2)
		}
		c := catchConfig{Frames: *catchFrames, FastRate: 4000, Quiet: 2 * time.Second, Live: 4,
			CatchUp: *catchSteps, FastForward: *catchFast, SendThreshold: n, Rejoin: *catchRejoin}
		c.Timeout = catchTimeout(c.Frames, c.FastRate)
		if c.Frames > 0 {
			catches = append(catches, c)
		}
	}
	began := time.Now()
	// The benchmark processes inherit it: BenchmarkHostPath's heavy sizes.
	if err := os.Setenv(hostPathFullEnv, "full"); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
	if *catchOnly {
		rep := &Report{}
		runCatchUps(rep, catches, began.Add(*bound))
		for _, c := range rep.CatchUp {
			if c.Disagree != "" {
				os.Exit(1)
			}
		}
		return
	}
	if re != nil {
		*transports = false
	}
	err := run(began, *bound, measureConfig{Passes: *passes, Benchtime: *benchtime, Filter: re, Log: os.Stderr}, *out, catches, *transports)
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

// catchTimeout bounds one catch-up run: three times the unpaced phase at
// its rate, and three minutes for the paced phase, the connections and
// the late peers.
func catchTimeout(frames, rate int) time.Duration {
	return time.Duration(frames/rate)*3*time.Second + 3*time.Minute
}

func run(began time.Time, bound time.Duration, mc measureConfig, out string, catches []catchConfig, transports bool) error {
	rep := &Report{
		Date:      began.UTC().Format(time.RFC3339),
		Commit:    commit(),
		GoVersion: runtime.Version(),
		OS:        runtime.GOOS,
		Arch:      runtime.GOARCH,
		CPU:       cpuName(),
		CPUs:      runtime.NumCPU(),
		Command:   "go run ./bench " + strings.Join(os.Args[1:], " "),
		Benchtime: mc.Benchtime.String(),
		Bound:     bound.String(),
	}
	var reserve time.Duration
	for _, c := range catches {
		reserve += c.Timeout
	}
	end := began.Add(bound)
	ctx, cancel := context.WithDeadline(context.Background(), end.Add(-reserve))
	defer cancel()
	mc.Deadline = end.Add(-reserve)
	fmt.Fprintf(os.Stderr, "bench: %d rows, at most %d passes of %v a benchmark; the benchmarks end by %s, the whole run by %s\n",
		len(rows), mc.Passes, mc.Benchtime, mc.Deadline.Format("15:04:05"), end.Format("15:04:05"))
	m, err := measure(ctx, rows, mc)
	if err != nil {
		return err
	}
	rep.Passes, rep.Rows, rep.Unlisted, rep.Load, rep.Build = m.Passes, m.Rows, m.Unlisted, m.Load, m.Build.Round(time.Millisecond).String()
	printHeader(os.Stdout, rep)
	if m.Cut != "" {
		fmt.Printf("%s\n", m.Cut)
	}
	printRows(os.Stdout, rep)
	runCatchUps(rep, catches, end)
	if transports {
		fmt.Println()
		measureTransports(rep, end)
	}
	if transports && *fleetFlag {
		measureFleet(rep, end)
	}
	rep.Load = append(rep.Load, readLoad())
	rep.Elapsed = time.Since(began).Round(time.Second).String()
	fmt.Printf("\nload average at the end %s; %s in all (bound %v)\n", rep.Load[len(rep.Load)-1], rep.Elapsed, bound)
	if out != "" {
		js, err := json.MarshalIndent(rep, "", "  ")
		if err != nil {
			return err
		}
		if err := os.WriteFile(out, append(js, '\n'), 0o644); err != nil {
			return err
		}
		fmt.Fprintf(os.Stderr, "bench: wrote %s\n", out)
	}
	for _, c := range rep.CatchUp {
		if c.Disagree != "" {
			return errors.New("the catch-up's checksums disagree")
		}
	}
	return nil
}

// runCatchUps runs each catch-up, within end, prints it and adds it to
// rep: a disagreement is the check failing; anything else that ends a run
// early is reported as what it is.
func runCatchUps(rep *Report, catches []catchConfig, end time.Time) {
	for _, c := range catches {
		fmt.Println()
		if left := time.Until(end); c.Timeout > left {
			c.Timeout = left
		}
		cr, err := runCatchUp(c)
		switch {
		case errors.Is(err, errDisagree):
			cr.Disagree = err.Error()
		case err != nil:
			cr.Incomplete = err.Error()
		}
		printCatchReport(os.Stdout, cr)
		rep.CatchUp = append(rep.CatchUp, cr)
	}
}

// commit names the tree measured: the HEAD commit, marked dirty when the
// work tree differs from it.
func commit() string {
	head, err := exec.Command("git", "rev-parse", "--short=12", "HEAD").Output()
	if err != nil {
		return "unknown"
	}
	c := strings.TrimSpace(string(head))
	if st, err := exec.Command("git", "status", "--porcelain", "--untracked-files=no").Output(); err == nil && len(bytes.TrimSpace(st)) > 0 {
		c += "-dirty"
	}
	return c
}

// cpuName is the processor's model name, from /proc/cpuinfo.
func cpuName() string {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return runtime.GOARCH
	}
	for _, l := range strings.Split(string(b), "\n") {
		if k, v, ok := strings.Cut(l, ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return runtime.GOARCH
}
