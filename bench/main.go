package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
)

// Report is the JSON the command writes: the results and where they came from.
type Report struct {
	Date      string    `json:"date"`
	Commit    string    `json:"commit"`
	GoVersion string    `json:"go_version"`
	OS        string    `json:"os"`
	Arch      string    `json:"arch"`
	CPU       string    `json:"cpu"`
	CPUs      int       `json:"cpus"`
	Command   string    `json:"command"`
	Results   []*Result `json:"results"`
	// CatchUp is the catch-up runs over loopback WebRTC (-catchup), one
	// for each -catchup-sendthreshold.
	CatchUp []catchReport `json:"catchup,omitempty"`
}

var defaultPackages = []string{
	"./rollback/",
	"./session/",
	"./codec/",
	"./transport/local/",
	"./playout/",
	"./demo/pong/game/",
	"./fixed/",
	"./bench/",
}

func main() {
	count := flag.Int("count", 3, "runs of each benchmark; the median is reported")
	benchtime := flag.String("benchtime", "", "passed to go test -benchtime (default: go test's)")
	filter := flag.String("bench", ".", "benchmark regexp, passed to go test -bench")
	out := flag.String("o", "bench/latest.json", "where to write the JSON report (empty: nowhere)")
	catchFrames := flag.Int("catchup", 36000, "frames of a two-player match over loopback WebRTC that a fresh spectator and a fresh rejoiner catch up on, after the benchmarks (0: none)")
	catchSteps := flag.Int("catchup-steps", 0, "the spectator's SpectatorConfig.CatchUp (0: the session's default)")
	catchFast := flag.Int("catchup-fastforward", 0, "the spectator's SpectatorConfig.FastForward (0: the session's default)")
	catchThresholds := flag.String("catchup-sendthreshold", "0", "comma-separated webrtc.Config.SendThreshold values, one catch-up run each (0: the transport's default)")
	catchRejoin := flag.Bool("catchup-rejoin", true, "a rejoiner catches up after the spectator")
	catchOnly := flag.Bool("catchup-only", false, "run the catch-up only: no benchmarks, no JSON")
	hitchPlot := flag.String("hitchplot", "", "write an SVG of drawn displacement per frame, paced against on arrival, to this file, and run nothing else")
	flag.Parse()
	if *hitchPlot != "" {
		if err := writeHitchPlot(*hitchPlot); err != nil {
			fmt.Fprintln(os.Stderr, "bench:", err)
			os.Exit(1)
		}
		return
	}
	pkgs := flag.Args()
	if len(pkgs) == 0 {
		pkgs = defaultPackages
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
		c.Timeout = time.Duration(c.Frames/c.FastRate)*3*time.Second + 3*time.Minute
		if c.Frames > 0 {
			catches = append(catches, c)
		}
	}
	if *catchOnly {
		if err := printCatchUps(os.Stdout, catches); err != nil {
			fmt.Fprintln(os.Stderr, "bench:", err)
			os.Exit(1)
		}
		return
	}
	if err := run(*count, *benchtime, *filter, *out, pkgs, catches); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

func run(count int, benchtime, filter, out string, pkgs []string, catches []catchConfig) error {
	args := []string{"test", "-run", "^$", "-bench", filter, "-benchmem", "-count", fmt.Sprint(count)}
	if benchtime != "" {
		args = append(args, "-benchtime", benchtime)
	}
	args = append(args, pkgs...)
	cmdline := "go " + strings.Join(args, " ")
	fmt.Fprintln(os.Stderr, cmdline)

	var buf bytes.Buffer
	cmd := exec.Command("go", args...)
	cmd.Stdout = &buf
	cmd.Stderr = os.Stderr
	if err := cmd.Run(); err != nil {
		os.Stderr.Write(buf.Bytes())
		return fmt.Errorf("%s: %w", cmdline, err)
	}
	parsed, err := parse(&buf)
	if err != nil {
		return err
	}
	pair(parsed.Results)

	rep := Report{
		Date:      time.Now().UTC().Format(time.RFC3339),
		Commit:    commit(),
		GoVersion: runtime.Version(),
		OS:        runtime.GOOS,
		Arch:      runtime.GOARCH,
		CPU:       parsed.CPU,
		CPUs:      runtime.NumCPU(),
		Command:   cmdline,
		Results:   parsed.Results,
	}
	printTable(os.Stdout, rep)
	for _, c := range catches {
		fmt.Println()
		cr, err := runCatchUp(c)
		if err != nil {
			return fmt.Errorf("catch-up: %w", err)
		}
		printCatchReport(os.Stdout, cr)
		rep.CatchUp = append(rep.CatchUp, cr)
	}
	if out == "" {
		return nil
	}
	js, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(out, append(js, '\n'), 0o644)
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

func printTable(w io.Writer, rep Report) {
	fmt.Fprintf(w, "rollnet benchmarks  %s  %s  %s/%s  %d CPUs  commit %s\n", rep.Date, rep.GoVersion, rep.OS, rep.Arch, rep.CPUs, rep.Commit)
	fmt.Fprintf(w, "cpu: %s\n", rep.CPU)
	fmt.Fprintf(w, "command: %s\n\n", rep.Command)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "benchmark\tns/op\tMB/s\tbaseline ns/op\tratio\tB/op\tallocs/op\tother\t")
	pkg := ""
	for _, r := range rep.Results {
		if r.Package != pkg {
			pkg = r.Package
			fmt.Fprintf(tw, "%s\t\t\t\t\t\t\t\t\n", shortPkg(pkg))
		}
		if _, isBase := subjectOf(r.Name); isBase {
			continue // shown beside its subject
		}
		base, ratio := "", ""
		if r.Baseline != "" {
			base = fmt.Sprintf("%.4g", r.BaseNs)
			ratio = fmt.Sprintf("%.2fx", r.Ratio)
		}
		mbs := ""
		if r.MBPerSec != 0 {
			mbs = fmt.Sprintf("%.0f", r.MBPerSec)
		}
		fmt.Fprintf(tw, "  %s\t%.4g\t%s\t%s\t%s\t%.0f\t%.0f\t%s\t\n",
			strings.TrimPrefix(r.Name, "Benchmark"), r.NsPerOp, mbs, base, ratio, r.BPerOp, r.AllocsOp, metrics(r.Metrics))
	}
	tw.Flush()
}

func shortPkg(p string) string {
	return strings.TrimPrefix(p, "github.com/rollnet/rollnet/")
}

func metrics(m map[string]float64) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var parts []string
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%.4g %s", m[k], k))
	}
	return strings.Join(parts, ", ")
}
