// SPDX-License-Identifier: GPL-2.0
/*
 * hzrig-netup IFNAME: bring a network interface up, as `ip link set dev
 * IFNAME up` would, on a kernel that has no INET, INET6 or PACKET (the
 * sweep's kernels: busybox's ip and ifconfig want one of those sockets
 * for their ioctls and exit 2 with "Address family not supported").
 * SIOCGIFFLAGS and SIOCSIFFLAGS go to any socket: a netlink socket's
 * ioctl hands them down to the device (dev_ioctl()), so the driver's
 * ndo_open runs, as it does for a program that uses the interface.
 * Exit 0 once the interface is up, 1 with the reason when it is not, 2 on
 * bad usage.
 */
#include <errno.h>
#include <linux/netlink.h>
#include <net/if.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	static const int families[] = { AF_NETLINK, AF_UNIX, AF_INET };
	struct ifreq ifr;
	int fd = -1;

	if (argc != 2 || !argv[1][0] || strlen(argv[1]) >= IFNAMSIZ) {
		fprintf(stderr, "usage: hzrig-netup IFNAME (at most %d characters)\n",
			IFNAMSIZ - 1);
		return 2;
	}
	for (size_t i = 0; fd < 0 && i < sizeof(families) / sizeof(families[0]); i++)
		fd = socket(families[i], SOCK_DGRAM | SOCK_CLOEXEC,
			    families[i] == AF_NETLINK ? NETLINK_ROUTE : 0);
	if (fd < 0) {
		fprintf(stderr, "hzrig-netup: no socket to ask with: %s\n", strerror(errno));
		return 1;
	}
	memset(&ifr, 0, sizeof(ifr));
	memcpy(ifr.ifr_name, argv[1], strlen(argv[1]));
	if (ioctl(fd, SIOCGIFFLAGS, &ifr) < 0) {
		fprintf(stderr, "hzrig-netup: %s: flags: %s\n", argv[1], strerror(errno));
		close(fd);
		return 1;
	}
	ifr.ifr_flags |= IFF_UP;
	if (ioctl(fd, SIOCSIFFLAGS, &ifr) < 0) {
		fprintf(stderr, "hzrig-netup: %s: up: %s\n", argv[1], strerror(errno));
		close(fd);
		return 1;
	}
	close(fd);
	return 0;
}
