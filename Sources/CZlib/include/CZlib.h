/*
 * CZlib: gzip for the built-in demo service's responses, from the system's zlib.
 *
 * One call: the whole body in, the gzip stream out (RFC 1952), at a level that favours speed.
 */
#ifndef CARDEALER_CZLIB_H
#define CARDEALER_CZLIB_H

#include <stddef.h>

/* Gzips `input` into `output` (room for `capacity` bytes); returns the bytes written, or 0 when the output did
 * not fit or zlib failed. `czlib_bound` gives a capacity that always fits. */
size_t czlib_gzip(const unsigned char *input, size_t length, unsigned char *output, size_t capacity, int level);
size_t czlib_bound(size_t length);

#endif
