//go:build !js

package natsauth

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
)

// Options are the nats.Options the flags stand for (files read now).
func (f Flags) Options() ([]nats.Option, error) {
	var o []nats.Option
	switch {
	case f.Creds != "":
		if _, err := os.Stat(f.Creds); err != nil {
			return nil, fmt.Errorf("-nats-creds: %w", err)
		}
		o = append(o, nats.UserCredentials(f.Creds))
	case f.NKey != "":
		opt, err := nats.NkeyOptionFromSeed(f.NKey)
		if err != nil {
			return nil, fmt.Errorf("-nats-nkey: %w", err)
		}
		o = append(o, opt)
	case f.User != "":
		b, err := os.ReadFile(f.PasswordFile)
		if err != nil {
			return nil, fmt.Errorf("-nats-password-file: %w", err)
		}
		o = append(o, nats.UserInfo(f.User, strings.TrimSpace(string(b))))
	}
	if f.CA != "" {
		o = append(o, nats.RootCAs(f.CA))
	}
	if f.Cert != "" {
		o = append(o, nats.ClientCert(f.Cert, f.Key))
	}
	return o, nil
}

// Connect dials rawURL with the flags' credentials and TLS, named name,
// reconnecting for ever every 250 ms.
func (f Flags) Connect(rawURL, name string) (*nats.Conn, error) {
	opts, err := f.Options()
	if err != nil {
		return nil, err
	}
	opts = append(opts, nats.Name(name), nats.MaxReconnects(-1), nats.ReconnectWait(250*time.Millisecond), nats.Timeout(5*time.Second))
	nc, err := nats.Connect(rawURL, opts...)
	if err != nil {
		if errors.Is(err, nats.ErrAuthorization) || strings.Contains(strings.ToLower(err.Error()), "authorization") {
			return nil, fmt.Errorf("%w (credentials: %s; see -nats-creds, -nats-nkey, -nats-user)", err, f.Auth())
		}
		return nil, err
	}
	return nc, nil
}
