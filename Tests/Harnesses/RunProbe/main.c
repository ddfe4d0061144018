// sandbox-run-probe: a small compiled program the `sandbox run` tests execute inside the sandbox.
// Each command tries one operation and prints "ok" (exit 0) or "error: <strerror>" (exit 1).
//
//   read PATH | write PATH | truncate PATH | link FROM TO | rename FROM TO | symlink TARGET NAME
//   connect PORT (TCP to 127.0.0.1) | bind PORT | udp PORT (a datagram to 127.0.0.1)
//   kill PID SIGNAL | ids (prints uid/euid)
//   exit STATUS | wait-term (prints "ready", exits 42 on SIGTERM)
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static int report(int result) {
    if (result < 0) {
        printf("error: %s\n", strerror(errno));
        return 1;
    }
    printf("ok\n");
    return 0;
}

static int tcp(const char *port, int binding) {
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0) return -1;
    struct sockaddr_in address = { .sin_family = AF_INET, .sin_port = htons((unsigned short)atoi(port)) };
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    return binding ? bind(fd, (struct sockaddr *)&address, sizeof(address))
                   : connect(fd, (struct sockaddr *)&address, sizeof(address));
}

static void on_term(int number) {
    (void)number;
    static const char message[] = "got SIGTERM\n";
    write(STDOUT_FILENO, message, sizeof(message) - 1);
    _exit(42);
}

int main(int argc, char **argv) {
    setvbuf(stdout, NULL, _IONBF, 0);
    if (argc < 2) return 2;
    const char *command = argv[1];
    if (!strcmp(command, "read") && argc == 3) {
        char buffer[64];
        int fd = open(argv[2], O_RDONLY);
        return report(fd < 0 ? -1 : (int)read(fd, buffer, sizeof(buffer)));
    }
    if (!strcmp(command, "write") && argc == 3) {
        int fd = open(argv[2], O_WRONLY | O_CREAT | O_TRUNC, 0644);
        return report(fd < 0 ? -1 : (int)write(fd, "probe", 5));
    }
    if (!strcmp(command, "truncate") && argc == 3) return report(truncate(argv[2], 0));
    if (!strcmp(command, "link") && argc == 4) return report(link(argv[2], argv[3]));
    if (!strcmp(command, "rename") && argc == 4) return report(rename(argv[2], argv[3]));
    if (!strcmp(command, "symlink") && argc == 4) return report(symlink(argv[2], argv[3]));
    if (!strcmp(command, "connect") && argc == 3) return report(tcp(argv[2], 0));
    if (!strcmp(command, "bind") && argc == 3) return report(tcp(argv[2], 1));
    if (!strcmp(command, "udp") && argc == 3) {
        int fd = socket(AF_INET, SOCK_DGRAM, 0);
        struct sockaddr_in address = { .sin_family = AF_INET, .sin_port = htons((unsigned short)atoi(argv[2])) };
        address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        return report(fd < 0 ? -1 : (int)sendto(fd, "probe", 5, 0, (struct sockaddr *)&address, sizeof(address)));
    }
    if (!strcmp(command, "kill") && argc == 4) return report(kill(atoi(argv[2]), atoi(argv[3])));
    if (!strcmp(command, "ids")) {
        printf("uid=%d euid=%d\n", (int)getuid(), (int)geteuid());
        return 0;
    }
    if (!strcmp(command, "exit") && argc == 3) return atoi(argv[2]);
    if (!strcmp(command, "wait-term")) {
        signal(SIGTERM, on_term);
        printf("ready\n");
        for (;;) pause();
    }
    return 2;
}
