#include "CZlib.h"

#include <zlib.h>

size_t czlib_bound(size_t length) {
    /* deflateBound for the default window, plus the gzip header and trailer. */
    return compressBound((uLong)length) + 18;
}

size_t czlib_gzip(const unsigned char *input, size_t length, unsigned char *output, size_t capacity, int level) {
    z_stream stream = {0};
    /* 15 + 16: a gzip wrapper rather than zlib's own. */
    if (deflateInit2(&stream, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) return 0;
    stream.next_in = (Bytef *)input;
    stream.avail_in = (uInt)length;
    stream.next_out = output;
    stream.avail_out = (uInt)capacity;
    int result = deflate(&stream, Z_FINISH);
    size_t written = capacity - stream.avail_out;
    deflateEnd(&stream);
    return result == Z_STREAM_END ? written : 0;
}
