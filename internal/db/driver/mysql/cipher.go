package mysql

import (
	"crypto/tls"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// openSSLNames maps the OpenSSL names of the TLS 1.2 cipher suites Go's
// crypto/tls implements (what libmysqlclient's --ssl-cipher, and so
// sysbench's --mysql-ssl-cipher, take) to Go's suite IDs.
var openSSLNames = map[string]uint16{
	"AES128-SHA":                    tls.TLS_RSA_WITH_AES_128_CBC_SHA,
	"AES256-SHA":                    tls.TLS_RSA_WITH_AES_256_CBC_SHA,
	"AES128-SHA256":                 tls.TLS_RSA_WITH_AES_128_CBC_SHA256,
	"AES128-GCM-SHA256":             tls.TLS_RSA_WITH_AES_128_GCM_SHA256,
	"AES256-GCM-SHA384":             tls.TLS_RSA_WITH_AES_256_GCM_SHA384,
	"DES-CBC3-SHA":                  tls.TLS_RSA_WITH_3DES_EDE_CBC_SHA,
	"RC4-SHA":                       tls.TLS_RSA_WITH_RC4_128_SHA,
	"ECDHE-ECDSA-AES128-SHA":        tls.TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA,
	"ECDHE-ECDSA-AES256-SHA":        tls.TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA,
	"ECDHE-ECDSA-AES128-SHA256":     tls.TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256,
	"ECDHE-ECDSA-AES128-GCM-SHA256": tls.TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256,
	"ECDHE-ECDSA-AES256-GCM-SHA384": tls.TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384,
	"ECDHE-ECDSA-CHACHA20-POLY1305": tls.TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256,
	"ECDHE-ECDSA-RC4-SHA":           tls.TLS_ECDHE_ECDSA_WITH_RC4_128_SHA,
	"ECDHE-RSA-AES128-SHA":          tls.TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA,
	"ECDHE-RSA-AES256-SHA":          tls.TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA,
	"ECDHE-RSA-AES128-SHA256":       tls.TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA256,
	"ECDHE-RSA-AES128-GCM-SHA256":   tls.TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256,
	"ECDHE-RSA-AES256-GCM-SHA384":   tls.TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384,
	"ECDHE-RSA-CHACHA20-POLY1305":   tls.TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256,
	"ECDHE-RSA-DES-CBC3-SHA":        tls.TLS_ECDHE_RSA_WITH_3DES_EDE_CBC_SHA,
	"ECDHE-RSA-RC4-SHA":             tls.TLS_ECDHE_RSA_WITH_RC4_128_SHA,
}

// CipherSuites reads a --mysql-ssl-cipher list: cipher suites separated by
// ':' (OpenSSL's separator; ',' and ' ' too), each in OpenSSL's name
// (ECDHE-RSA-AES128-GCM-SHA256) or Go's (TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256).
// Only TLS 1.2 suites can be chosen: Go picks the TLS 1.3 suite itself, so a
// TLS 1.3 name is refused, and a connection given a list is held to TLS 1.2.
// A name Go does not implement is refused with the names it does.
func CipherSuites(list string) ([]uint16, error) {
	goNames := map[string]uint16{}
	tls13 := map[string]bool{}
	for _, cs := range append(tls.CipherSuites(), tls.InsecureCipherSuites()...) {
		if slices.Contains(cs.SupportedVersions, tls.VersionTLS13) {
			tls13[cs.Name] = true
			continue
		}
		goNames[cs.Name] = cs.ID
	}
	var ids []uint16
	for _, name := range strings.FieldsFunc(list, func(r rune) bool { return r == ':' || r == ',' || r == ' ' }) {
		id, ok := openSSLNames[strings.ToUpper(name)]
		if !ok {
			id, ok = goNames[strings.ToUpper(name)]
		}
		switch {
		case ok:
			if !slices.Contains(ids, id) {
				ids = append(ids, id)
			}
		case tls13[strings.ToUpper(name)]:
			return nil, fmt.Errorf("--mysql-ssl-cipher %s: a TLS 1.3 cipher suite, which cannot be chosen: Go's TLS picks the TLS 1.3 suite itself; give TLS 1.2 suites (the connection is then held to TLS 1.2) or leave the option out", name)
		default:
			return nil, fmt.Errorf("--mysql-ssl-cipher %s: not a TLS 1.2 cipher suite fairbench's TLS implements; give one of %s (OpenSSL's names; Go's TLS_… names too)",
				name, strings.Join(slices.Sorted(maps.Keys(openSSLNames)), ", "))
		}
	}
	if len(ids) == 0 {
		return nil, fmt.Errorf("--mysql-ssl-cipher %q names no cipher suite", list)
	}
	return ids, nil
}
