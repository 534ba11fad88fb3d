// SPDX-License-Identifier: MIT
/*
 * The opening of an lp-rdma session over TCP (rdma/proto.h): OPEN, CHALLENGE,
 * AUTH, then the server's GRANT or BUSY (rdma/server.c). With a shared key
 * (--key FILE, the same on both sides) each side answers the other's random
 * nonce with HMAC-SHA256 under the key - OpenSSL's libcrypto computes it and
 * compares in constant time - so neither a client without the key nor a
 * server without it gets past the opening, and an answer cannot be replayed
 * in another session (fresh nonces) or reflected to the other side (the two
 * answers are labelled apart). Without a key both answers are zeros and the
 * opening only carries the wire version and the server's BUSY.
 */
#include "rdma/internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#ifdef LP_HAVE_CRYPTO
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#endif

#include "common/lp.h"

bool lp_rdma_key_supported(void)
{
#ifdef LP_HAVE_CRYPTO
	return true;
#else
	return false;
#endif
}

/* The key file's bytes into key once the file passed its checks; trailing blanks are not key. */
static int key_read(int fd, const char *path, struct lp_rdma_key *key, struct lp_fail *f)
{
	uint8_t buf[LP_RDMA_KEY_MAX + 1];
	size_t n = 0;
	ssize_t r;
	int ret;

	while (n < sizeof(buf) && (r = read(fd, buf + n, sizeof(buf) - n)) > 0)
		n += (size_t)r;
	while (n && (buf[n - 1] == '\n' || buf[n - 1] == '\r' || buf[n - 1] == ' ' ||
		     buf[n - 1] == '\t'))
		n--;
	if (n > LP_RDMA_KEY_MAX || n < LP_RDMA_KEY_MIN) {
		ret = lp_fail_set(
			f, -EINVAL,
			"key file %s holds %s%zu bytes: a key is %d to %d bytes (make one: head -c 32 "
			"/dev/urandom | base64 > %s; chmod 600 %s)",
			path, n > LP_RDMA_KEY_MAX ? "over " : "", n, LP_RDMA_KEY_MIN,
			LP_RDMA_KEY_MAX, path, path);
		explicit_bzero(buf, sizeof(buf));
		return ret;
	}
	memcpy(key->k, buf, n);
	key->len = n;
	explicit_bzero(buf, sizeof(buf));
	return 0;
}

int lp_rdma_key_load(const char *path, struct lp_rdma_key *key, struct lp_fail *f)
{
	struct stat st;
	int fd, ret = -EINVAL;

	memset(key, 0, sizeof(*key));
	if (!lp_rdma_key_supported())
		return lp_fail_set(f, -EOPNOTSUPP,
				   "--key: this lp-rdma was built without OpenSSL's libcrypto "
				   "(libssl-dev), which computes the key's HMAC");
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return lp_fail_set(f, -EINVAL, "cannot read key file %s: %s", path,
				   strerror(errno));
	if (fstat(fd, &st))
		ret = lp_fail_set(f, -EINVAL, "cannot read key file %s: %s", path, strerror(errno));
	else if (!S_ISREG(st.st_mode))
		ret = lp_fail_set(f, -EINVAL, "key file %s is not a regular file", path);
	else if (st.st_uid != geteuid())
		ret = lp_fail_set(f, -EINVAL,
				  "key file %s belongs to uid %u, not to this user (uid %u)", path,
				  (unsigned)st.st_uid, (unsigned)geteuid());
	else if (st.st_mode & (S_IRWXG | S_IRWXO)) /* as ssh refuses a private key */
		ret = lp_fail_set(
			f, -EINVAL,
			"key file %s is open to its group or others (mode %04o): only its owner "
			"may read it (chmod 600 %s)",
			path, (unsigned)(st.st_mode & 07777), path);
	else
		ret = key_read(fd, path, key, f);
	close(fd);
	return ret;
}

/* HMAC-SHA256(key, label NUL version a b): one side's answer to the other's nonce. */
static int auth_mac(const struct lp_rdma_key *key, const char *label, const uint8_t *a,
		    const uint8_t *b, uint8_t out[LP_AUTH_MAC])
{
#ifdef LP_HAVE_CRYPTO
	uint8_t msg[32 + 2 + 2 * LP_AUTH_NONCE];
	size_t n = strlen(label) + 1;
	unsigned int outlen = 0;

	memcpy(msg, label, n);
	msg[n++] = LP_WIRE_VERSION >> 8;
	msg[n++] = LP_WIRE_VERSION & 0xff;
	memcpy(msg + n, a, LP_AUTH_NONCE);
	memcpy(msg + n + LP_AUTH_NONCE, b, LP_AUTH_NONCE);
	n += 2 * LP_AUTH_NONCE;
	if (!HMAC(EVP_sha256(), key->k, (int)key->len, msg, n, out, &outlen) ||
	    outlen != LP_AUTH_MAC)
		return -EIO;
	return 0;
#else
	(void)key;
	(void)label;
	(void)a;
	(void)b;
	memset(out, 0, LP_AUTH_MAC);
	return -EOPNOTSUPP;
#endif
}

/* Does got equal the answer key gives (constant time)? */
static bool auth_ok(const struct lp_rdma_key *key, const char *label, const uint8_t *a,
		    const uint8_t *b, const uint8_t got[LP_AUTH_MAC])
{
#ifdef LP_HAVE_CRYPTO
	uint8_t want[LP_AUTH_MAC];

	return !auth_mac(key, label, a, b, want) && !CRYPTO_memcmp(want, got, LP_AUTH_MAC);
#else
	(void)key;
	(void)label;
	(void)a;
	(void)b;
	(void)got;
	return false;
#endif
}

static const char client_label[] = "lp-rdma client";
static const char server_label[] = "lp-rdma server";

static int nonce_new(uint8_t nonce[LP_AUTH_NONCE])
{
	return getrandom(nonce, LP_AUTH_NONCE, 0) == LP_AUTH_NONCE ? 0 : -EIO;
}

int lp_auth_server_open(struct lp_oob *oob, const struct lp_rdma_key *key, struct lp_fail *f)
{
	struct lp_proto_open op;
	struct lp_proto_challenge ch = { .key = key != NULL };
	struct lp_proto_auth au;
	int ret = lp_proto_expect(oob, LP_MSG_OPEN, &op, oob->timeout_ms, f);

	if (!ret && nonce_new(ch.nonce))
		ret = lp_fail_set(f, -EIO, "no random numbers for the challenge");
	if (!ret && key && auth_mac(key, server_label, op.nonce, ch.nonce, ch.proof))
		ret = lp_fail_set(f, -EIO, "HMAC-SHA256 failed");
	if (!ret)
		ret = lp_proto_send(oob, LP_MSG_CHALLENGE, &ch);
	if (!ret)
		ret = lp_proto_expect(oob, LP_MSG_AUTH, &au, oob->timeout_ms, f);
	if (ret == -EPROTONOSUPPORT) /* an old client: its build names both versions */
		lp_proto_send_error(oob, ret, "%s", f->msg);
	if (ret)
		return ret;
	if (key && !auth_ok(key, client_label, ch.nonce, op.nonce, au.mac)) {
		lp_proto_send_error(oob, -EACCES,
				    "authentication failed: the client's key is not this server's");
		return lp_fail_set(f, -EACCES, "refused: wrong key (authentication failed)");
	}
	return 0;
}

/*
 * The server's CHALLENGE, answered: our key's answer into au, once the server
 * proved it holds the same key (or neither side has one). -EACCES with the
 * reason when the two sides' keys disagree; the server is told too.
 */
static int client_answer(struct lp_oob *oob, const struct lp_rdma_key *key,
			 const struct lp_proto_open *op, const struct lp_proto_challenge *ch,
			 struct lp_proto_auth *au, struct lp_fail *f)
{
	const char *why = NULL;

	memset(au, 0, sizeof(*au));
	if (ch->key && !key)
		why = "requires a shared key: give the client --key FILE with the server's key";
	else if (!ch->key && key)
		why = "uses no key, so it cannot prove it is the server whose key --key holds "
		      "(drop --key to use it)";
	else if (key && !auth_ok(key, server_label, op->nonce, ch->nonce, ch->proof))
		why = "answered with another key's proof: its key is not the one --key holds";
	else if (key && auth_mac(key, client_label, ch->nonce, op->nonce, au->mac))
		why = "cannot be answered: HMAC-SHA256 failed here";
	if (!why)
		return 0;
	lp_proto_send_error(oob, -EACCES, "the client refused the server: the server %s", why);
	return lp_fail_set(f, -EACCES, "server %s %s", oob->peer_name, why);
}

/* GRANT (0), BUSY (-EBUSY, *retry_s_p) or ERROR (the server's reason) after AUTH. */
static int client_granted(struct lp_oob *oob, unsigned *retry_s_p, struct lp_fail *f)
{
	uint8_t body[LP_WIRE_MAX_BODY];
	struct lp_proto_busy busy;
	uint16_t type;
	size_t len;
	int ret = lp_proto_recv(oob, &type, body, &len, oob->timeout_ms, f);

	if (ret || type == LP_MSG_GRANT)
		return ret;
	if (type != LP_MSG_BUSY || lp_proto_decode(type, &busy, body, len))
		return lp_proto_take(oob, LP_MSG_GRANT, NULL, type, body, len, f); /* ERROR, ... */
	*retry_s_p = LP_MAX(busy.retry_s, 1u);
	return lp_fail_set(f, -EBUSY, "server %s is busy: %s; try again in %u s (or --wait SECS)",
			   oob->peer_name, busy.text, *retry_s_p);
}

int lp_rdma_client_open(struct lp_oob *oob, const struct lp_rdma_key *key, unsigned *retry_s_p,
			struct lp_fail *f)
{
	struct lp_proto_open op;
	struct lp_proto_challenge ch;
	struct lp_proto_auth au;
	struct lp_fail own = { 0 }; /* this opening's cause (an old server's silence explained) */
	int ret = nonce_new(op.nonce)
			  ? lp_fail_set(&own, -EIO, "no random numbers for the challenge")
			  : lp_proto_send(oob, LP_MSG_OPEN, &op);

	*retry_s_p = 0;
	if (!ret)
		ret = lp_proto_expect(oob, LP_MSG_CHALLENGE, &ch, oob->timeout_ms, &own);
	if (ret == -ECONNRESET) { /* what a server of an older wire version does to OPEN */
		lp_fail_clear(&own);
		lp_fail_set(&own, ret,
			    "server %s closed the connection without a word: a server of wire "
			    "version %d or older (an older lp-rdma) does that, or it dropped this "
			    "client (its log says why)",
			    oob->peer_name, LP_WIRE_VERSION - 1);
	}
	if (!ret)
		ret = client_answer(oob, key, &op, &ch, &au, &own);
	if (!ret)
		ret = lp_proto_send(oob, LP_MSG_AUTH, &au);
	if (!ret)
		ret = client_granted(oob, retry_s_p, &own);
	if (ret && !lp_fail_take(f, &own))
		lp_fail_set(f, ret, "%s", strerror(-ret));
	return ret;
}
