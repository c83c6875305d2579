#include <pango/pangocairo.h>
