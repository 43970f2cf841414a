package wire

import (
	"math"
	"math/bits"
	"strconv"
	"unsafe"
)

func isDigit(c byte) bool { return c-'0' < 10 }

// scanNumber validates the RFC 8259 number starting at i and returns the
// position after it.
func scanNumber(data []byte, i int) (int, error) {
	start := i
	if i < len(data) && data[i] == '-' {
		i++
	}
	switch {
	case i >= len(data):
		return i, syntaxError(i, "unexpected end of input in number")
	case data[i] == '0':
		i++
		if i < len(data) && isDigit(data[i]) {
			return i, syntaxError(start, "invalid number: leading zero")
		}
	case isDigit(data[i]):
		i++
		for i < len(data) && isDigit(data[i]) {
			i++
		}
	default:
		return i, errChar(i, data[i], "in number, expected digit")
	}
	if i < len(data) && data[i] == '.' {
		i++
		if i >= len(data) || !isDigit(data[i]) {
			return i, syntaxError(start, "invalid number: expected digit after decimal point")
		}
		for i < len(data) && isDigit(data[i]) {
			i++
		}
	}
	if i < len(data) && (data[i] == 'e' || data[i] == 'E') {
		i++
		if i < len(data) && (data[i] == '+' || data[i] == '-') {
			i++
		}
		if i >= len(data) || !isDigit(data[i]) {
			return i, syntaxError(start, "invalid number: expected digit in exponent")
		}
		for i < len(data) && isDigit(data[i]) {
			i++
		}
	}
	return i, nil
}

// ReadNumberRaw consumes a number and returns its bytes as written,
// aliasing the input.
func (d *Decoder) ReadNumberRaw() ([]byte, error) {
	i := d.ws()
	if i >= len(d.data) || kindOf[d.data[i]] != KindNumber {
		return nil, d.unexpected("number")
	}
	end, err := scanNumber(d.data, i)
	if err != nil {
		return nil, err
	}
	d.pos = end
	return d.data[i:end], nil
}

// maxShown bounds how much of a number an error message repeats.
const maxShown = 40

func shown(num []byte) string {
	if len(num) > maxShown {
		return string(num[:maxShown]) + "..."
	}
	return string(num)
}

// readInteger consumes a number whose value is an integer and returns its
// sign and magnitude. format names the Go type for range errors. The caller
// range-checks and only then should commit d.pos = end.
func (d *Decoder) readInteger(format string) (neg bool, mag uint64, end int, err error) {
	data := d.data
	i := d.ws()
	if i >= len(data) || kindOf[data[i]] != KindNumber {
		return false, 0, i, d.unexpected("integer")
	}
	// Fast path: up to 19 plain digits cannot overflow uint64.
	j := i
	if data[j] == '-' {
		neg = true
		j++
	}
	k := j
	for k < len(data) && k-j < 19 && isDigit(data[k]) {
		mag = mag*10 + uint64(data[k]-'0')
		k++
	}
	n := k - j
	if n > 0 && (n == 1 || data[j] != '0') &&
		(k >= len(data) || (!isDigit(data[k]) && data[k] != '.' && data[k] != 'e' && data[k] != 'E')) {
		return neg, mag, k, nil
	}
	end, err = scanNumber(data, i)
	if err != nil {
		return false, 0, i, err
	}
	num := data[i:end]
	neg, mag, st := integral(num)
	switch st {
	case intFraction:
		return false, 0, i, &Error{Offset: i, Msg: "expected integer, found " + shown(num)}
	case intOverflow:
		return false, 0, i, rangeError(i, num, format)
	}
	return neg, mag, end, nil
}

func rangeError(off int, num []byte, format string) error {
	return &Error{Offset: off, Msg: shown(num) + " is out of range for " + format}
}

const (
	intOK = iota
	intFraction
	intOverflow
)

// integral evaluates a validated JSON number exactly, reporting whether it
// is an integer that fits in a uint64 magnitude. It works on the decimal
// digits directly, so forms like 1.0, 1e3 and 10.50e1 are accepted and
// inexact float rounding never turns 1.0000000000000000001 into 1.
func integral(num []byte) (neg bool, mag uint64, status int) {
	i := 0
	if num[0] == '-' {
		neg = true
		i++
	}
	intStart := i
	for i < len(num) && isDigit(num[i]) {
		i++
	}
	ip := num[intStart:i]
	var fp []byte
	if i < len(num) && num[i] == '.' {
		i++
		s := i
		for i < len(num) && isDigit(num[i]) {
			i++
		}
		fp = num[s:i]
	}
	var exp int64
	if i < len(num) && (num[i] == 'e' || num[i] == 'E') {
		i++
		eneg := false
		if num[i] == '+' || num[i] == '-' {
			eneg = num[i] == '-'
			i++
		}
		for ; i < len(num); i++ {
			if exp < 1e12 { // clamp: anything this large is out of range anyway
				exp = exp*10 + int64(num[i]-'0')
			}
		}
		if eneg {
			exp = -exp
		}
	}
	// The digits ip++fp, as one sequence, times 10^(exp-len(fp)).
	total := len(ip) + len(fp)
	at := func(k int) byte {
		if k < len(ip) {
			return ip[k]
		}
		return fp[k-len(ip)]
	}
	lo := 0
	for lo < total && at(lo) == '0' {
		lo++
	}
	if lo == total {
		return neg, 0, intOK // zero, in any notation
	}
	hi := total - 1
	for at(hi) == '0' {
		hi--
	}
	// Significant digits at(lo..hi) times 10^scale.
	scale := exp - int64(len(fp)) + int64(total-1-hi)
	if scale < 0 {
		return neg, 0, intFraction
	}
	if int64(hi-lo+1)+scale > 20 {
		return neg, 0, intOverflow
	}
	for k := lo; k <= hi; k++ {
		h, l := bits.Mul64(mag, 10)
		l2, carry := bits.Add64(l, uint64(at(k)-'0'), 0)
		if h != 0 || carry != 0 {
			return neg, 0, intOverflow
		}
		mag = l2
	}
	for ; scale > 0; scale-- {
		h, l := bits.Mul64(mag, 10)
		if h != 0 {
			return neg, 0, intOverflow
		}
		mag = l
	}
	return neg, mag, intOK
}

// ReadInt64 consumes an integer-valued number that fits in an int64.
func (d *Decoder) ReadInt64() (int64, error) {
	neg, mag, end, err := d.readInteger("int64")
	if err != nil {
		return 0, err
	}
	if neg {
		if mag > 1<<63 {
			return 0, rangeError(d.pos, d.data[d.pos:end], "int64")
		}
		d.pos = end
		return int64(-mag), nil
	}
	if mag > math.MaxInt64 {
		return 0, rangeError(d.pos, d.data[d.pos:end], "int64")
	}
	d.pos = end
	return int64(mag), nil
}

// ReadInt32 consumes an integer-valued number that fits in an int32.
func (d *Decoder) ReadInt32() (int32, error) {
	neg, mag, end, err := d.readInteger("int32")
	if err != nil {
		return 0, err
	}
	if neg {
		if mag > 1<<31 {
			return 0, rangeError(d.pos, d.data[d.pos:end], "int32")
		}
		d.pos = end
		return int32(-int64(mag)), nil
	}
	if mag > math.MaxInt32 {
		return 0, rangeError(d.pos, d.data[d.pos:end], "int32")
	}
	d.pos = end
	return int32(mag), nil
}

// readUnsigned consumes an integer in [0, max]; -0 counts as 0.
func (d *Decoder) readUnsigned(format string, max uint64) (uint64, error) {
	neg, mag, end, err := d.readInteger(format)
	if err != nil {
		return 0, err
	}
	if mag > max || (neg && mag != 0) {
		return 0, rangeError(d.pos, d.data[d.pos:end], format)
	}
	d.pos = end
	return mag, nil
}

// ReadUint16 consumes an integer-valued number that fits in a uint16.
func (d *Decoder) ReadUint16() (uint16, error) {
	v, err := d.readUnsigned("uint16", math.MaxUint16)
	return uint16(v), err
}

// ReadUint32 consumes an integer-valued number that fits in a uint32.
func (d *Decoder) ReadUint32() (uint32, error) {
	v, err := d.readUnsigned("uint32", math.MaxUint32)
	return uint32(v), err
}

// ReadUint64 consumes an integer-valued number that fits in a uint64.
func (d *Decoder) ReadUint64() (uint64, error) {
	return d.readUnsigned("uint64", math.MaxUint64)
}

// pow10 holds the powers of ten exactly representable in a float64.
var pow10 = [...]float64{1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10,
	1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22}

// ReadFloat64 consumes any number that is within float64 range.
func (d *Decoder) ReadFloat64() (float64, error) {
	data := d.data
	i := d.ws()
	if i >= len(data) || kindOf[data[i]] != KindNumber {
		return 0, d.unexpected("number")
	}
	end, err := scanNumber(data, i)
	if err != nil {
		return 0, err
	}
	num := data[i:end]
	if f, ok := fastFloat(num); ok {
		d.pos = end
		return f, nil
	}
	// The string aliases the input only for the duration of the call;
	// ParseFloat copies it into any error it returns.
	f, perr := strconv.ParseFloat(unsafe.String(&num[0], len(num)), 64)
	if perr != nil {
		return 0, rangeError(i, num, "float64")
	}
	d.pos = end
	return f, nil
}

// fastFloat converts numbers with at most 15 significant digits and a small
// decimal exponent exactly: both the mantissa and 10^k are exact float64s,
// so one IEEE multiplication or division rounds correctly.
func fastFloat(num []byte) (float64, bool) {
	i := 0
	neg := false
	if num[0] == '-' {
		neg = true
		i++
	}
	var m uint64
	nd := 0
	frac := 0
	for ; i < len(num) && isDigit(num[i]); i++ {
		m = m*10 + uint64(num[i]-'0')
		nd++
	}
	if i < len(num) && num[i] == '.' {
		for i++; i < len(num) && isDigit(num[i]); i++ {
			m = m*10 + uint64(num[i]-'0')
			nd++
			frac++
		}
	}
	if nd > 15 || i != len(num) || frac > 22 {
		return 0, false // exponent or too many digits: leave it to strconv
	}
	f := float64(m)
	if frac > 0 {
		f /= pow10[frac]
	}
	if neg {
		f = -f
	}
	return f, true
}
