package testkit

import (
	"errors"
	"testing"
	"time"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/transport/local"
)

type loop struct {
	name   string
	next   time.Time
	period time.Duration
	cut    bool
	log    *[]string
}

func (l *loop) Next() (time.Time, bool) { return l.next, !l.cut }
func (l *loop) Tick() {
	*l.log = append(*l.log, l.name)
	l.next = l.next.Add(l.period)
}

func TestRunOrderAndEnd(t *testing.T) {
	clock := local.NewClock(Epoch)
	var log []string
	a := &loop{name: "a", next: Epoch, period: 10 * time.Millisecond, log: &log}
	b := &loop{name: "b", next: Epoch, period: 15 * time.Millisecond, log: &log}
	c := &loop{name: "c", next: Epoch, period: time.Millisecond, cut: true, log: &log}
	Run(clock, Epoch.Add(30*time.Millisecond), false, []Loop{a, b, c})
	want := "a b a b a" // 0: a b; 10: a; 15: b; 20: a; 30 is the end, not run
	if got := join(log); got != want {
		t.Fatalf("ticks %q, want %q", got, want)
	}
	if !clock.Now().Equal(Epoch.Add(30 * time.Millisecond)) {
		t.Fatalf("clock at %v", clock.Now())
	}
	log = log[:0]
	Run(clock, Epoch.Add(30*time.Millisecond), true, []Loop{a, b, c})
	if got := join(log); got != "a b" {
		t.Fatalf("with atEnd, ticks %q, want the two due at the end", got)
	}
}

func join(s []string) string {
	out := ""
	for i, x := range s {
		if i > 0 {
			out += " "
		}
		out += x
	}
	return out
}

type sums map[rollnet.Frame]uint32

func (s sums) ChecksumAt(f rollnet.Frame) (uint32, error) {
	v, ok := s[f]
	if !ok {
		return 0, errors.New("not held")
	}
	return v, nil
}

func TestAgreement(t *testing.T) {
	a := NewAgreement()
	if got, err := a.Through("x", sums{1: 10, 2: 20}, 0, 2); err != nil || got != 2 {
		t.Fatalf("first node: %d %v", got, err)
	}
	if got, err := a.Through("y", sums{1: 10, 2: 21}, 0, 2); err == nil || got != 1 {
		t.Fatalf("a disagreement at 2 must stop there: %d %v", got, err)
	}
	if a.Agreed != 1 {
		t.Fatalf("agreed %d", a.Agreed)
	}
	if _, err := a.Through("z", sums{}, 2, 3); err == nil {
		t.Fatal("a frame not held must fail")
	}
	a.Forget(1)
	if _, ok := a.Sum(1); ok {
		t.Fatal("forgotten")
	}
}
