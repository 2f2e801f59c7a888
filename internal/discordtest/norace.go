//go:build !race

package discordtest

// raceEnabled is true in a binary built with the race detector.
const raceEnabled = false
