// Avahi's client library: publishing DNS-SD services through the system's avahi-daemon over
// D-Bus, on a poll loop of its own thread (the share's announcement, issue 32).
#include <avahi-client/client.h>
#include <avahi-client/publish.h>
#include <avahi-common/alternative.h>
#include <avahi-common/error.h>
#include <avahi-common/malloc.h>
#include <avahi-common/strlst.h>
#include <avahi-common/thread-watch.h>
#include <avahi-common/timeval.h>
