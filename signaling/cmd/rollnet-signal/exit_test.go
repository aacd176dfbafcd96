//go:build !js

package main

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"io"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rollnet/rollnet/signaling/client"
)

func TestRunMainExitStatus(t *testing.T) {
	none := func(string) string { return "" }
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer taken.Close()
	for _, tc := range []struct {
		args []string
		code int
	}{
		{[]string{"-h"}, 0},
		{[]string{"-help"}, 0},
		{[]string{"-bogus"}, 2},
		{[]string{"-max-room", "x"}, 2},
		{[]string{"-max-room", "-1"}, 2},
		{[]string{"-log-level", "loud"}, 2},
		{[]string{"extra"}, 2},
		{[]string{"-tls-cert", "c.pem"}, 2},
		{[]string{"-trusted-proxy", "not-an-address"}, 2},
		{[]string{"-mint-token", "lobby"}, 2},
		{[]string{"-addr", taken.Addr().String()}, 1},
		{[]string{"-addr", "127.0.0.1:0", "-tls-cert", "/nonexistent/c.pem", "-tls-key", "/nonexistent/k.pem"}, 1},
	} {
		var stdout, stderr bytes.Buffer
		code := runMain(context.Background(), tc.args, &stdout, &stderr, none)
		require.Equal(t, tc.code, code, "%q: %s", tc.args, stderr.String())
		switch tc.code {
		case 0:
			require.Contains(t, stdout.String(), "usage: rollnet-signal")
			require.Contains(t, stdout.String(), "-trusted-proxy")
			require.Empty(t, stderr.String())
		case 2:
			// A short message, not the whole usage.
			require.Empty(t, stdout.String())
			require.LessOrEqual(t, strings.Count(stderr.String(), "\n"), 2, "%q: %s", tc.args, stderr.String())
			require.Contains(t, stderr.String(), "rollnet-signal -h")
		}
	}
}

// logFile is a file the server's goroutines log to while the test reads
// it (a file is safe for that; a bytes.Buffer is not).
type logFile struct{ *os.File }

func newLogFile(t *testing.T) logFile {
	f, err := os.Create(filepath.Join(t.TempDir(), "log"))
	require.NoError(t, err)
	t.Cleanup(func() { _ = f.Close() })
	return logFile{f}
}

func (l logFile) String() string {
	b, _ := os.ReadFile(l.Name())
	return string(b)
}

// serveCmd runs the command with args on a loopback port until the test
// ends, and returns its address.
func serveCmd(t *testing.T, args []string, stderr io.Writer) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	addrc := make(chan string, 1)
	errc := make(chan error, 1)
	go func() {
		errc <- run(ctx, append([]string{"-addr", "127.0.0.1:0"}, args...), &bytes.Buffer{}, stderr,
			func(string) string { return "" }, func(a string) { addrc <- a })
	}()
	var addr string
	select {
	case addr = <-addrc:
	case err := <-errc:
		t.Fatal(err)
	case <-time.After(waitBound):
		t.Fatalf("waited %v for the server to listen", waitBound)
	}
	t.Cleanup(func() {
		cancel()
		require.NoError(t, recv(t, errc, "run to return"))
	})
	return addr
}

func TestRunLogsJoinsAndLeaves(t *testing.T) {
	stderr := newLogFile(t)
	addr := serveCmd(t, []string{"-log-level", "debug"}, stderr)
	ctx := context.Background()
	a, err := client.Dial(ctx, "ws://"+addr+"/room/lobby", client.Config{})
	require.NoError(t, err)
	b, err := client.Dial(ctx, "ws://"+addr+"/room/lobby", client.Config{})
	require.NoError(t, err)
	require.NoError(t, b.Close())
	require.Eventually(t, func() bool { return strings.Contains(stderr.String(), "signaling leave") }, 10*time.Second, time.Millisecond)
	require.NoError(t, a.Close())

	logs := stderr.String()
	require.Regexp(t, `level=INFO msg="signaling join" peer=`+a.ID()+` .*room=lobby size=1 peers=\[\]`, logs)
	require.Regexp(t, `level=INFO msg="signaling join" peer=`+b.ID()+` .*room=lobby size=2 peers=\[`+a.ID()+`\]`, logs)
	require.Regexp(t, `level=INFO msg="signaling leave" peer=`+b.ID()+` .*room=lobby size=1 reason="closed by the client"`, logs)
	// A normal close is not an error, at any level.
	for _, line := range strings.Split(logs, "\n") {
		if strings.Contains(line, b.ID()) {
			require.NotRegexp(t, regexp.MustCompile(`level=(ERROR|WARN)|err=|StatusNormalClosure`), line)
		}
	}
}

func TestRunTLS(t *testing.T) {
	dir := t.TempDir()
	pool := writeSelfSigned(t, dir)
	addr := serveCmd(t, []string{"-tls-cert", filepath.Join(dir, "cert.pem"), "-tls-key", filepath.Join(dir, "key.pem")}, io.Discard)
	tr := &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}
	defer tr.CloseIdleConnections()
	c, err := client.Dial(context.Background(), "wss://"+addr+"/room/secure",
		client.Config{HTTPClient: &http.Client{Transport: tr}})
	require.NoError(t, err)
	require.Equal(t, "secure", c.Room())
	require.NoError(t, c.Close())
	// Plain HTTP is not served on a TLS port.
	_, err = client.Dial(context.Background(), "ws://"+addr+"/room/secure", client.Config{})
	require.Error(t, err)
	http.DefaultClient.CloseIdleConnections()
}

// writeSelfSigned writes cert.pem and key.pem for 127.0.0.1 into dir and
// returns a pool that trusts the certificate.
func writeSelfSigned(t *testing.T, dir string) *x509.CertPool {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1),
		Subject:      pkix.Name{CommonName: "rollnet-signal test"},
		IPAddresses:  []net.IP{net.IPv4(127, 0, 0, 1)},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	require.NoError(t, err)
	kder, err := x509.MarshalECPrivateKey(key)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "cert.pem"), pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "key.pem"), pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kder}), 0o600))
	cert, err := x509.ParseCertificate(der)
	require.NoError(t, err)
	pool := x509.NewCertPool()
	pool.AddCert(cert)
	return pool
}
