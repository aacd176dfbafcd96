package session

import "github.com/rollnet/rollnet"

type Rand = rollnet.Rand

var NewRand = rollnet.NewRand
