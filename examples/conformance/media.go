package main

import (
	"bytes"
	"encoding/binary"
	"image"
	"image/color"
	"image/png"
)

// redPixelPNG is a 1x1 red PNG, the image the suite suggests for image blocks.
func redPixelPNG() []byte {
	img := image.NewRGBA(image.Rect(0, 0, 1, 1))
	img.Set(0, 0, color.RGBA{R: 255, A: 255})
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		panic(err) // encoding an in-memory 1x1 image cannot fail
	}
	return b.Bytes()
}

// silentWAV is a tiny valid WAV file: 8 kHz, 8-bit mono, 80 samples (10 ms)
// of silence.
func silentWAV() []byte {
	const (
		rate     = 8000
		channels = 1
		bits     = 8
		samples  = 80
	)
	var b bytes.Buffer
	le := func(v any) { _ = binary.Write(&b, binary.LittleEndian, v) }
	b.WriteString("RIFF")
	le(uint32(36 + samples))
	b.WriteString("WAVEfmt ")
	le(uint32(16))                         // fmt chunk size
	le(uint16(1))                          // PCM
	le(uint16(channels))                   //
	le(uint32(rate))                       // sample rate
	le(uint32(rate * channels * bits / 8)) // byte rate
	le(uint16(channels * bits / 8))        // block align
	le(uint16(bits))                       //
	b.WriteString("data")
	le(uint32(samples))
	b.Write(bytes.Repeat([]byte{0x80}, samples)) // 8-bit PCM silence is 128
	return b.Bytes()
}
