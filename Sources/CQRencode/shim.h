// libqrencode (Debian's libqrencode-dev): the QR code of the share's pairing link.
#include <qrencode.h>
