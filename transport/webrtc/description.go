package webrtc

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// The JSON shapes of the signals, the same on both builds and as a browser
// page's own RTCSessionDescriptionInit and RTCIceCandidateInit (and pion's
// SessionDescription and ICECandidateInit, which marshal alike): a
// Go-wasm peer, a native peer and a plain-JS page negotiate with each
// other unchanged.

// description is an offer or an answer.
type description struct {
	Type string `json:"type"` // "offer" or "answer"
	SDP  string `json:"sdp"`
}

// candidate is one ICE candidate as RTCIceCandidate.toJSON() gives it.
type candidate struct {
	Candidate        string  `json:"candidate"`
	SDPMid           *string `json:"sdpMid"`
	SDPMLineIndex    *uint16 `json:"sdpMLineIndex"`
	UsernameFragment *string `json:"usernameFragment"`
}

func parseDescription(payload []byte, want string) (description, error) {
	var d description
	if err := json.Unmarshal(payload, &d); err != nil {
		return d, err
	}
	if d.Type != want {
		return d, fmt.Errorf("got %q, want %q", d.Type, want)
	}
	return d, nil
}

// parseCandidates decodes one candidate or an array of at most max, none
// empty.
func parseCandidates(payload []byte, max int) ([]candidate, bool) {
	var cs []candidate
	if b := bytes.TrimLeft(payload, " \t\r\n"); len(b) > 0 && b[0] == '[' {
		if err := json.Unmarshal(b, &cs); err != nil || len(cs) == 0 || len(cs) > max {
			return nil, false
		}
	} else {
		var c candidate
		if err := json.Unmarshal(payload, &c); err != nil {
			return nil, false
		}
		cs = append(cs, c)
	}
	for _, c := range cs {
		if c.Candidate == "" {
			return nil, false
		}
	}
	return cs, true
}
