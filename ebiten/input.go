package rollebiten

import "github.com/hajimehoshi/ebiten/v2"

// Bits is what a KeyMap folds keys into: an input type that is a bit set.
type Bits interface {
	~uint8 | ~uint16 | ~uint32 | ~uint64
}

// Bind is one of a game's controls: while any of Keys, or any of Buttons
// on any gamepad with the standard layout, is held, Bits is set in the
// input.
type Bind[I Bits] struct {
	Bits    I
	Keys    []ebiten.Key
	Buttons []ebiten.StandardGamepadButton
}

// KeyMap folds the keyboard and gamepads into a game's input. Read it
// with Reader; it allocates nothing per call.
type KeyMap[I Bits] []Bind[I]

// Reader is the input function for Config.Input: the OR of the Bits of
// every Bind held.
func (k KeyMap[I]) Reader() func() I {
	pads := make([]ebiten.GamepadID, 0, 8)
	return func() I {
		pads = ebiten.AppendGamepadIDs(pads[:0])
		var in I
		for _, b := range k {
			if b.held(pads) {
				in |= b.Bits
			}
		}
		return in
	}
}

func (b *Bind[I]) held(pads []ebiten.GamepadID) bool {
	for _, key := range b.Keys {
		if ebiten.IsKeyPressed(key) {
			return true
		}
	}
	for _, id := range pads {
		for _, btn := range b.Buttons {
			if ebiten.IsStandardGamepadButtonPressed(id, btn) {
				return true
			}
		}
	}
	return false
}
