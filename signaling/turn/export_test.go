package turn

// New is newRelay for the tests: a relay on sockets of their own.
var New = newRelay
