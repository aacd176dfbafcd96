package multi

// Unexpected counts the datagrams t dropped for a part that is not an
// Expecter (the parts that are count their own).
func Unexpected(t Transport) uint64 { return t.(*combined).unexpected.Load() }
