package netplay

import (
	"github.com/rollnet/rollnet/internal/netplayhatch"
	"github.com/rollnet/rollnet/transport/webrtc"
)

// hatched is a *Match of any types: internal/netplayhatch reaches under it
// for this module's binaries (the demo's recording and report).
type hatched interface{ under() [5]any }

func init() {
	netplayhatch.Under = func(m any) [5]any {
		if h, ok := m.(hatched); ok {
			return h.under()
		}
		return [5]any{}
	}
}

// under is the session underneath (one set, once built) and the WebRTC
// transport joined through Config.Signal (nil while connecting and with
// Config.Transport). A nil pointer of each type is left out, so that
// netplayhatch.Of finds none.
func (m *Match[S, I]) under() (out [5]any) {
	if m.d != nil {
		s := m.d.sessions()
		if s.p != nil {
			out[0] = s.p
		}
		if s.sp != nil {
			out[1] = s.sp
		}
		if s.h != nil {
			out[2] = s.h
		}
		if s.c != nil {
			out[3] = s.c
		}
	}
	if rtc, ok := m.link.rm.(webrtc.Transport); ok && rtc != nil {
		out[4] = rtc
	}
	return out
}
