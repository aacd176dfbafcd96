package quic

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/hex"
	"fmt"
	"math/big"
	"net"
	"strings"
	"time"

	"github.com/rollnet/rollnet"
)

// selfSignedValidity is how long a SelfSigned certificate is valid. A
// browser accepts a certificate by its hash (WebTransport's
// serverCertificateHashes) only if it is ECDSA and valid for at most 14
// days; 13 leaves a day for clock skew.
const selfSignedValidity = 13 * 24 * time.Hour

// SelfSigned makes a development certificate for hosts (names or IP
// addresses; none means "localhost", 127.0.0.1 and ::1): an ECDSA P-256 key,
// valid from an hour ago for SelfSignedValidity, which a client accepts by
// pinning its SHA-256 (CertHash) and a browser by serverCertificateHashes.
func SelfSigned(hosts ...string) (tls.Certificate, error) {
	if len(hosts) == 0 {
		hosts = []string{"localhost", "127.0.0.1", "::1"}
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("quic: self-signed key: %w", err)
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("quic: self-signed serial: %w", err)
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber: serial,
		Subject:      pkix.Name{CommonName: "rollnet host"},
		NotBefore:    now.Add(-time.Hour),
		NotAfter:     now.Add(-time.Hour + selfSignedValidity),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	for _, h := range hosts {
		if ip := net.ParseIP(h); ip != nil {
			tmpl.IPAddresses = append(tmpl.IPAddresses, ip)
		} else {
			tmpl.DNSNames = append(tmpl.DNSNames, h)
		}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("quic: self-signed certificate: %w", err)
	}
	leaf, err := x509.ParseCertificate(der)
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("quic: self-signed certificate: %w", err)
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key, Leaf: leaf}, nil
}

// CertHash is the SHA-256 of a certificate chain's leaf (its DER bytes):
// what a client pins (Config.PinSHA256) and a browser names in
// serverCertificateHashes.
func CertHash(cert tls.Certificate) [32]byte {
	if len(cert.Certificate) == 0 {
		return [32]byte{}
	}
	return sha256.Sum256(cert.Certificate[0])
}

// FormatHash writes a certificate hash as 64 lower-case hex digits, the
// form the commands print and ParseHash reads.
func FormatHash(h [32]byte) string { return hex.EncodeToString(h[:]) }

// ParseHash reads a certificate hash written by FormatHash (colons, as
// openssl prints fingerprints, and upper case are accepted too).
func ParseHash(s string) ([32]byte, error) {
	var h [32]byte
	s = strings.ReplaceAll(s, ":", "")
	if len(s) != 64 {
		return h, fmt.Errorf("%w: quic: certificate hash %q is not 64 hex digits", rollnet.ErrConfig, s)
	}
	if _, err := hex.Decode(h[:], []byte(strings.ToLower(s))); err != nil {
		return h, fmt.Errorf("%w: quic: certificate hash: %w", rollnet.ErrConfig, err)
	}
	return h, nil
}
