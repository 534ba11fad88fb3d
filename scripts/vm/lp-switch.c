/* lp-switch - a small learning Ethernet switch for QEMU guests joined over unix sockets.
 *
 * usage: lp-switch DIR N
 *
 * Listens on DIR/p0.sock .. DIR/p(N-1).sock. Each port takes one client speaking QEMU's
 * `-netdev stream` framing (a 4-byte big-endian length, then the Ethernet frame). Source MACs
 * are learned per port; unicast goes to the learned port only, broadcast, multicast and unknown
 * destinations are flooded. Frames that do not fit a port's output queue are dropped, as a real
 * switch would, so one slow guest never stalls the others.
 * Exits when every client that connected has gone, or on SIGTERM/SIGINT; removes its sockets.
 * It never stops reading a port: a guest's transmit path depends only on QEMU and this loop.
 * On stderr: one line per client that connects or goes (with why and its frame counts), and on
 * SIGUSR1 one line per port with its state (frames and bytes each way, drops, what sits in its
 * buffers, how long ago its last frame came): what a stalled guest NIC looked like from here.
 * Exit status: 0 ok, 1 runtime error, 2 usage error.
 */
#define _GNU_SOURCE /* accept4 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#define LP_SW_MAX_PORTS 64
#define LP_SW_MAX_FRAME (65536 + 4096) /* QEMU's NET_BUFSIZE */
#define LP_SW_HDR	4
#define LP_SW_INBUF	(LP_SW_HDR + LP_SW_MAX_FRAME)
#define LP_SW_OUTBUF	(1024 * 1024)
#define LP_SW_MACS	1024

static volatile sig_atomic_t lp_sw_stop;
static volatile sig_atomic_t lp_sw_dump;

struct lp_sw_port {
	int lfd; /* listening socket */
	int cfd; /* connected client, -1 when none */
	char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
	unsigned char in[LP_SW_INBUF];
	size_t in_len;
	unsigned char *out; /* queued frames (with headers) */
	size_t out_off, out_len;
	unsigned long drops;
	unsigned long rx_frames, tx_frames; /* frames in from the client, out to it */
	unsigned long long rx_bytes, tx_bytes;
	double last_rx; /* monotonic seconds of the last frame in; 0: none */
};

struct lp_sw_mac {
	unsigned char mac[6];
	int port; /* -1: free slot */
};

struct lp_sw {
	int n;
	int ever;  /* clients that ever connected */
	int alive; /* clients connected now */
	struct lp_sw_port *ports;
	struct lp_sw_mac macs[LP_SW_MACS];
};

static void lp_sw_on_signal(int sig)
{
	if (sig == SIGUSR1)
		lp_sw_dump = 1;
	else
		lp_sw_stop = 1;
}

static double lp_sw_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* One line per port: the state a stalled guest's port was in (SIGUSR1). */
static void lp_sw_report(const struct lp_sw *sw)
{
	double now = lp_sw_now();

	for (int i = 0; i < sw->n; i++) {
		const struct lp_sw_port *p = &sw->ports[i];
		char ago[32] = "never";

		if (p->last_rx > 0)
			snprintf(ago, sizeof(ago), "%.1f s ago", now - p->last_rx);
		fprintf(stderr,
			"lp-switch: port %d: %s, in %lu frames %llu B, out %lu frames queued %llu B written, "
			"%lu dropped, input buffer %zu B, output queue %zu B, last frame in %s\n",
			i, p->cfd >= 0 ? "connected" : "no client", p->rx_frames, p->rx_bytes,
			p->tx_frames, p->tx_bytes, p->drops, p->in_len, p->out_len, ago);
	}
}

static int lp_sw_nonblock(int fd)
{
	int fl = fcntl(fd, F_GETFL);

	if (fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) < 0)
		return -errno;
	return 0;
}

static int lp_sw_listen(struct lp_sw_port *p, const char *dir, int i)
{
	struct sockaddr_un sa;
	int n;

	n = snprintf(p->path, sizeof(p->path), "%s/p%d.sock", dir, i);
	if (n < 0 || (size_t)n >= sizeof(p->path)) {
		fprintf(stderr,
			"lp-switch: socket path too long: %s/p%d.sock (%d bytes, max %zu)\n", dir,
			i, n, sizeof(p->path) - 1);
		return -ENAMETOOLONG;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sun_family = AF_UNIX;
	memcpy(sa.sun_path, p->path, (size_t)n + 1);
	unlink(p->path);
	p->lfd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (p->lfd < 0 || bind(p->lfd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
	    listen(p->lfd, 4) < 0 || lp_sw_nonblock(p->lfd) < 0) {
		int err = errno;

		fprintf(stderr, "lp-switch: %s: %s\n", p->path, strerror(err));
		return -err;
	}
	return 0;
}

static void lp_sw_forget_port(struct lp_sw *sw, int port)
{
	for (int i = 0; i < LP_SW_MACS; i++)
		if (sw->macs[i].port == port)
			sw->macs[i].port = -1;
}

static void lp_sw_drop_client(struct lp_sw *sw, int i, const char *why)
{
	struct lp_sw_port *p = &sw->ports[i];

	if (p->cfd < 0)
		return;
	fprintf(stderr, "lp-switch: port %d: client gone (%s) after %lu frames in, %lu out\n", i,
		why, p->rx_frames, p->tx_frames);
	close(p->cfd);
	p->cfd = -1;
	p->in_len = 0;
	p->out_off = p->out_len = 0;
	sw->alive--;
	lp_sw_forget_port(sw, i);
}

static void lp_sw_learn(struct lp_sw *sw, const unsigned char *mac, int port)
{
	int free_slot = -1;

	if (mac[0] & 1) /* a multicast source is bogus: never learn it */
		return;
	for (int i = 0; i < LP_SW_MACS; i++) {
		if (sw->macs[i].port < 0) {
			if (free_slot < 0)
				free_slot = i;
			continue;
		}
		if (memcmp(sw->macs[i].mac, mac, 6) == 0) {
			sw->macs[i].port = port; /* a station may move */
			return;
		}
	}
	if (free_slot < 0)
		free_slot = (int)(mac[5] % LP_SW_MACS); /* full: evict something */
	memcpy(sw->macs[free_slot].mac, mac, 6);
	sw->macs[free_slot].port = port;
}

static int lp_sw_lookup(const struct lp_sw *sw, const unsigned char *mac)
{
	for (int i = 0; i < LP_SW_MACS; i++)
		if (sw->macs[i].port >= 0 && memcmp(sw->macs[i].mac, mac, 6) == 0)
			return sw->macs[i].port;
	return -1;
}

/* Try to write queued output; returns 0, or -errno when the client is gone. */
static int lp_sw_flush(struct lp_sw_port *p)
{
	while (p->out_len > 0) {
		ssize_t w = send(p->cfd, p->out + p->out_off, p->out_len, MSG_NOSIGNAL);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				return 0;
			return -errno;
		}
		p->out_off += (size_t)w;
		p->out_len -= (size_t)w;
		p->tx_bytes += (unsigned long long)w;
	}
	p->out_off = 0;
	return 0;
}

static void lp_sw_enqueue(struct lp_sw_port *p, const unsigned char *frame, size_t len)
{
	size_t need = LP_SW_HDR + len;

	if (p->cfd < 0)
		return;
	if (p->out_off + p->out_len + need > LP_SW_OUTBUF) {
		memmove(p->out, p->out + p->out_off, p->out_len);
		p->out_off = 0;
	}
	if (p->out_len + need > LP_SW_OUTBUF) {
		p->drops++;
		return;
	}
	unsigned char *d = p->out + p->out_off + p->out_len;

	d[0] = (unsigned char)(len >> 24);
	d[1] = (unsigned char)(len >> 16);
	d[2] = (unsigned char)(len >> 8);
	d[3] = (unsigned char)len;
	memcpy(d + LP_SW_HDR, frame, len);
	p->out_len += need;
	p->tx_frames++;
}

static void lp_sw_forward(struct lp_sw *sw, int src, const unsigned char *frame, size_t len)
{
	int dst = -1;

	if (len >= 12) {
		lp_sw_learn(sw, frame + 6, src);
		if (!(frame[0] & 1))
			dst = lp_sw_lookup(sw, frame);
	}
	if (dst == src)
		return; /* destination sits behind the source port */
	if (dst >= 0) {
		lp_sw_enqueue(&sw->ports[dst], frame, len);
		return;
	}
	for (int i = 0; i < sw->n; i++)
		if (i != src)
			lp_sw_enqueue(&sw->ports[i], frame, len);
}

/* Read what is available from port i and forward complete frames; 0, or -EPIPE (end of
 * stream), -EPROTO (a bad frame length) or -errno (a read error) when the client is gone. */
static int lp_sw_receive(struct lp_sw *sw, int i)
{
	struct lp_sw_port *p = &sw->ports[i];

	for (;;) {
		ssize_t r = recv(p->cfd, p->in + p->in_len, sizeof(p->in) - p->in_len, 0);

		if (r == 0)
			return -EPIPE;
		if (r < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				return 0;
			return -errno;
		}
		p->in_len += (size_t)r;
		size_t off = 0;

		while (p->in_len - off >= LP_SW_HDR) {
			const unsigned char *h = p->in + off;
			size_t len =
				(size_t)h[0] << 24 | (size_t)h[1] << 16 | (size_t)h[2] << 8 | h[3];

			if (len == 0 || len > LP_SW_MAX_FRAME) {
				fprintf(stderr, "lp-switch: port %d: bad frame length %zu\n", i,
					len);
				return -EPROTO;
			}
			if (p->in_len - off < LP_SW_HDR + len)
				break;
			p->rx_frames++;
			p->rx_bytes += len;
			p->last_rx = lp_sw_now();
			lp_sw_forward(sw, i, h + LP_SW_HDR, len);
			off += LP_SW_HDR + len;
		}
		memmove(p->in, p->in + off, p->in_len - off);
		p->in_len -= off;
	}
}

static const char *lp_sw_why(int err)
{
	switch (err) {
	case -EPIPE:
		return "end of stream";
	case -EPROTO:
		return "bad frame length";
	default:
		return strerror(-err);
	}
}

static void lp_sw_accept(struct lp_sw *sw, int i)
{
	struct lp_sw_port *p = &sw->ports[i];
	int fd = accept4(p->lfd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);

	if (fd < 0)
		return;
	if (p->cfd >= 0) { /* one client per port */
		fprintf(stderr, "lp-switch: port %d: a second client refused\n", i);
		close(fd);
		return;
	}
	p->cfd = fd;
	sw->ever++;
	sw->alive++;
	fprintf(stderr, "lp-switch: port %d: client connected\n", i);
}

static int lp_sw_run(struct lp_sw *sw)
{
	struct pollfd pfd[2 * LP_SW_MAX_PORTS];

	while (!lp_sw_stop) {
		int k = 0;

		if (sw->ever > 0 && sw->alive == 0)
			return 0;
		if (lp_sw_dump) {
			lp_sw_dump = 0;
			lp_sw_report(sw);
		}
		for (int i = 0; i < sw->n; i++) {
			struct lp_sw_port *p = &sw->ports[i];

			pfd[k++] = (struct pollfd){ .fd = p->lfd, .events = POLLIN };
			pfd[k++] = (struct pollfd){
				.fd = p->cfd, .events = (short)(POLLIN | (p->out_len ? POLLOUT : 0))
			};
		}
		if (poll(pfd, (nfds_t)k, 1000) < 0) {
			if (errno == EINTR)
				continue;
			perror("lp-switch: poll");
			return -1;
		}
		for (int i = 0; i < sw->n; i++) {
			struct lp_sw_port *p = &sw->ports[i];
			short lre = pfd[2 * i].revents, cre = pfd[2 * i + 1].revents;

			if (lre & POLLIN)
				lp_sw_accept(sw, i);
			if (p->cfd < 0 || pfd[2 * i + 1].fd != p->cfd)
				continue;
			int err = (cre & POLLIN) ? lp_sw_receive(sw, i) : 0;

			if (err < 0)
				lp_sw_drop_client(sw, i, lp_sw_why(err));
			else if ((cre & (POLLERR | POLLHUP)) && !(cre & POLLIN))
				lp_sw_drop_client(sw, i,
						  (cre & POLLERR) ? "socket error" : "hang-up");
		}
		/* flush after all input was spread, so a frame reaches its queue in one round */
		for (int i = 0; i < sw->n; i++) {
			int err = 0;

			if (sw->ports[i].cfd >= 0 && sw->ports[i].out_len)
				err = lp_sw_flush(&sw->ports[i]);
			if (err < 0)
				lp_sw_drop_client(sw, i, lp_sw_why(err));
		}
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct sigaction sa;
	struct lp_sw sw;
	char *end;
	long n;
	int ret = 1;

	if (argc != 3) {
		fprintf(stderr,
			"usage: lp-switch DIR N   (listens on DIR/p0.sock .. p<N-1>.sock)\n");
		return 2;
	}
	n = strtol(argv[2], &end, 10);
	if (*argv[2] == '\0' || *end != '\0' || n < 1 || n > LP_SW_MAX_PORTS) {
		fprintf(stderr, "lp-switch: N must be 1..%d, got '%s'\n", LP_SW_MAX_PORTS, argv[2]);
		return 2;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = lp_sw_on_signal; /* no SA_RESTART: poll() returns EINTR */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sigaction(SIGUSR1, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);

	memset(&sw, 0, sizeof(sw));
	sw.n = (int)n;
	for (int i = 0; i < LP_SW_MACS; i++)
		sw.macs[i].port = -1;
	sw.ports = calloc((size_t)sw.n, sizeof(*sw.ports));
	if (!sw.ports) {
		fprintf(stderr, "lp-switch: out of memory\n");
		return 1;
	}
	for (int i = 0; i < sw.n; i++) {
		sw.ports[i].lfd = -1;
		sw.ports[i].cfd = -1;
	}
	for (int i = 0; i < sw.n; i++) {
		sw.ports[i].out = malloc(LP_SW_OUTBUF);
		if (!sw.ports[i].out) {
			fprintf(stderr, "lp-switch: out of memory\n");
			goto out_ports;
		}
		if (lp_sw_listen(&sw.ports[i], argv[1], i) < 0)
			goto out_ports;
	}
	ret = lp_sw_run(&sw) < 0 ? 1 : 0;
	for (int i = 0; i < sw.n; i++)
		if (sw.ports[i].drops)
			fprintf(stderr, "lp-switch: port %d: %lu frames dropped (queue full)\n", i,
				sw.ports[i].drops);
out_ports:
	for (int i = 0; i < sw.n; i++) {
		struct lp_sw_port *p = &sw.ports[i];

		if (p->cfd >= 0)
			close(p->cfd);
		if (p->lfd >= 0) {
			close(p->lfd);
			unlink(p->path);
		}
		free(p->out);
	}
	free(sw.ports);
	return ret;
}
