package main

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// impairment is the -impair flag: latency, jitter and loss added to every
// datagram this side sends.
type impairment struct {
	Latency time.Duration
	Jitter  time.Duration
	Loss    float64 // 0..1
}

func (im *impairment) String() string {
	if im == nil || *im == (impairment{}) {
		return ""
	}
	return fmt.Sprintf("%v,%v,%g%%", im.Latency, im.Jitter, im.Loss*100)
}

// Set parses "latency[,jitter[,loss%]]", e.g. "100ms,15ms,2%".
func (im *impairment) Set(v string) error {
	parts := strings.Split(v, ",")
	if len(parts) > 3 || v == "" {
		return fmt.Errorf("want latency,jitter,loss%% (e.g. 100ms,15ms,2%%), got %q", v)
	}
	var out impairment
	for i, p := range parts {
		p = strings.TrimSpace(p)
		if i < 2 {
			d, err := time.ParseDuration(p)
			if err != nil || d < 0 || d > 10*time.Second {
				return fmt.Errorf("bad duration %q (0 to 10s, e.g. 100ms)", p)
			}
			if i == 0 {
				out.Latency = d
			} else {
				out.Jitter = d
			}
			continue
		}
		f, err := strconv.ParseFloat(strings.TrimSuffix(p, "%"), 64)
		if err != nil || f < 0 || f > 100 {
			return fmt.Errorf("bad loss %q (0%% to 100%%)", p)
		}
		out.Loss = f / 100
	}
	if out.Jitter > out.Latency {
		return fmt.Errorf("jitter %v larger than latency %v", out.Jitter, out.Latency)
	}
	*im = out
	return nil
}
