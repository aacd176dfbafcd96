package main

// -rejoin FILE in the authority mode: netplay keeps the client's token in
// FILE (netplay.FileStore: 0600, written atomically) once the host gave
// it, and a process killed and started again with the same -rejoin FILE
// rejoins its slots: within the host's grace window the same paddle,
// after it a fresh one, whose token replaces the old in FILE.

// keepToken says where the client's token went, for the log line that
// prints it.
func (m *authClient) keepToken() string {
	if m.o.rejoin == "" {
		return " (with -rejoin FILE a restarted client takes its paddle back)"
	}
	return " kept in " + m.o.rejoin + " (started again with -rejoin " + m.o.rejoin + ", this client takes its paddle back)"
}
