#include <libavformat/avformat.h>
#include <libavcodec/avcodec.h>
#include <libavcodec/bsf.h>
#include <libswscale/swscale.h>
#include <libswresample/swresample.h>
#include <libavutil/channel_layout.h>
#include <libavutil/samplefmt.h>
#include <libavutil/imgutils.h>
#include <libavutil/display.h>
#include <libavutil/error.h>
#include <libavutil/opt.h>

/* AVERROR(e) and AVERROR_EOF are macros Swift cannot import. */
static inline int lectern_averror_eagain(void) { return AVERROR(EAGAIN); }
static inline int lectern_averror_eof(void) { return AVERROR_EOF; }
