// libzstd (Debian's libzstd-dev): backup blobs compressed per blob (issue 30). Only the stable API:
// the experimental one (ZSTD_STATIC_LINKING_ONLY) may change between the shared library's versions.
#include <zstd.h>
