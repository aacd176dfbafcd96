// Package natsauth is how rollnet's commands connect to NATS: the flags
// that name their credentials (a creds file, an nkey seed, or a user and a
// password file) and TLS (the server's CA, a client certificate), shared
// by rollnet-signal -nats, rollnet-host -fleet and rollnet-fleet -drain,
// and the connection they make. A library user dials NATS itself
// (nats.Connect with nats.UserCredentials, nats.RootCAs and so on) and
// hands the connection to signaling.ServerConfig.NATS or fleet.NewPlacer.
package natsauth

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"net/url"
	"strings"
)

// Prefix starts every flag this package registers: a command's usage
// lists them apart (PrintDefaults).
const Prefix = "nats-"

// Flags are the NATS connection's credentials and TLS.
type Flags struct {
	Creds, NKey, User, PasswordFile string
	CA, Cert, Key                   string
}

// Register adds the flags to fs: -nats-creds, -nats-nkey, -nats-user,
// -nats-password-file, -nats-ca, -nats-cert, -nats-key.
func (f *Flags) Register(fs *flag.FlagSet) {
	fs.StringVar(&f.Creds, Prefix+"creds", "", "authenticate to NATS with this `FILE` of credentials (a user JWT and its nkey seed, as nsc writes it)")
	fs.StringVar(&f.NKey, Prefix+"nkey", "", "authenticate to NATS with the nkey seed in this `FILE` (SU...)")
	fs.StringVar(&f.User, Prefix+"user", "", "authenticate to NATS as this `USER`, with -nats-password-file")
	fs.StringVar(&f.PasswordFile, Prefix+"password-file", "", "the NATS password of -nats-user, read from this `FILE`")
	fs.StringVar(&f.CA, Prefix+"ca", "", "verify the NATS server's TLS certificate against this PEM `FILE` of CA certificates (implies TLS)")
	fs.StringVar(&f.Cert, Prefix+"cert", "", "present this PEM client certificate `FILE` to NATS (TLS), with -nats-key")
	fs.StringVar(&f.Key, Prefix+"key", "", "the PEM private key `FILE` of -nats-cert")
}

// Validate checks the flags' combinations and the URL's scheme (nats://
// or tls://); a command reports its error as a usage error.
func (f Flags) Validate(rawURL string) error {
	n := 0
	for _, s := range []string{f.Creds, f.NKey, f.User} {
		if s != "" {
			n++
		}
	}
	switch {
	case n > 1:
		return errors.New("-nats-creds, -nats-nkey and -nats-user exclude one another")
	case (f.User == "") != (f.PasswordFile == ""):
		return errors.New("-nats-user and -nats-password-file go together")
	case (f.Cert == "") != (f.Key == ""):
		return errors.New("-nats-cert and -nats-key go together")
	}
	for _, u := range strings.Split(rawURL, ",") {
		p, err := url.Parse(strings.TrimSpace(u))
		if err != nil || (p.Scheme != "nats" && p.Scheme != "tls") || p.Host == "" {
			return fmt.Errorf("want nats://HOST:PORT or tls://HOST:PORT, got %q", u)
		}
		if p.User != nil {
			return fmt.Errorf("%s: credentials in the URL show in the process list; use -nats-user and -nats-password-file", p.Redacted())
		}
	}
	return nil
}

// Anonymous reports whether the flags name no credentials.
func (f Flags) Anonymous() bool { return f.Creds == "" && f.NKey == "" && f.User == "" }

// Auth names the credentials for a log line: "creds", "nkey", "user NAME"
// or "none".
func (f Flags) Auth() string {
	switch {
	case f.Creds != "":
		return "creds"
	case f.NKey != "":
		return "nkey"
	case f.User != "":
		return "user " + f.User
	}
	return "none"
}

// PrintDefaults prints fs's flags as fs.PrintDefaults does, the NATS
// connection's (Prefix) apart under heading, after the others.
func PrintDefaults(fs *flag.FlagSet, w io.Writer, heading string) {
	main := flag.NewFlagSet(fs.Name(), flag.ContinueOnError)
	natsFS := flag.NewFlagSet(fs.Name(), flag.ContinueOnError)
	fs.VisitAll(func(fl *flag.Flag) {
		to := main
		if strings.HasPrefix(fl.Name, Prefix) && fl.Name != Prefix+"name" && fl.Name != Prefix+"dead-after" {
			to = natsFS
		}
		to.Var(fl.Value, fl.Name, fl.Usage)
		to.Lookup(fl.Name).DefValue = fl.DefValue
	})
	main.SetOutput(w)
	main.PrintDefaults()
	fmt.Fprintf(w, "\n%s\n", heading)
	natsFS.SetOutput(w)
	natsFS.PrintDefaults()
}
