package impair

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/rollnet/rollnet/transport/local"
)

// ParseLink reads the short description of a link a command line takes:
// "latency[,jitter[,loss%]]", for example "100ms,15ms,2%" (100 ms ± 15 ms
// one way, 2 % of datagrams lost). It fails with ErrSpec for anything else,
// or with rollnet.ErrConfig for values local.Link refuses (jitter above
// latency, say).
func ParseLink(s string) (local.Link, error) {
	parts := strings.Split(s, ",")
	if s == "" || len(parts) > 3 {
		return local.Link{}, fmt.Errorf("%w: want latency[,jitter[,loss%%]] (e.g. 100ms,15ms,2%%), got %q", ErrSpec, s)
	}
	var l local.Link
	for i, p := range parts {
		p = strings.TrimSpace(p)
		if i < 2 {
			d, err := time.ParseDuration(p)
			if err != nil || d < 0 {
				return local.Link{}, fmt.Errorf("%w: bad duration %q (e.g. 100ms)", ErrSpec, p)
			}
			if i == 0 {
				l.Latency = d
			} else {
				l.Jitter = d
			}
			continue
		}
		num, ok := strings.CutSuffix(p, "%")
		f, err := strconv.ParseFloat(num, 64)
		if !ok || err != nil || f < 0 || f > 100 {
			return local.Link{}, fmt.Errorf("%w: bad loss %q (0%% to 100%%, with the %% sign)", ErrSpec, p)
		}
		l.Loss = f / 100
	}
	if _, err := modelOf(l).Validate(); err != nil {
		return local.Link{}, err
	}
	return l, nil
}

// FormatLink is the short description ParseLink reads, for a link that
// has only latency, jitter and loss.
func FormatLink(l local.Link) string {
	return fmt.Sprintf("%v,%v,%g%%", l.Latency, l.Jitter, l.Loss*100)
}
