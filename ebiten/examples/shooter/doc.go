// Command shooter is a hitscan gallery on rollnet's authoritative mode
// with lag compensation: 2 to 8 players shoot at targets that cross the
// screen at constant speeds. A host and the other players (bots that aim
// where they see a target) run in this process over an in-memory network
// of 100 ± 20 ms round trips and 2% loss; the window is one more player:
// click to shoot where the pointer is (or -bot to let it aim).
//
// Every player draws the targets in the past (at its render time), and
// each shot carries what its player drew: the host judges the hit there
// (netplay's LagComp option over authority's lag compensation), so a shot
// that lands on the screen lands on the host. -lagcomp=false judges at the host's present instead: the same
// shots miss. The top line counts the window player's hits as it saw them
// and as the host confirmed them.
//
//	shooter                     # a window, lag compensation on
//	shooter -lagcomp=false      # the host judges the present
//	shooter -bot -frames 600 -shot shot.png -report -   # headless check
package main
