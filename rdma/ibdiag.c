// SPDX-License-Identifier: MIT
/*
 * What the fabric's own tools say about the far end of a port: infiniband-diags' smpquery
 * (libibmad's dump format: "Name:" padded with dots to 32 columns, then the value;
 * rdma-core libibmad/dump.c, infiniband-diags/smpquery.c) and lldpd's `lldpctl -f keyvalue`
 * ("lldp.IF.chassis.name=VALUE"). Parsers, and the runs that feed them (rdma/inventory.h).
 */
#include "rdma/inventory.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/cmd.h"

int lp_ibdiag_field(const char *text, const char *name, char *val, size_t len)
{
	size_t n = strlen(name);

	for (const char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		const char *v = l + n + 1, *end;

		if (strncmp(l, name, n) || l[n] != ':')
			continue;
		while (*v == '.')
			v++;
		end = strchr(v, '\n');
		end = end ? end : v + strlen(v);
		while (end > v && (end[-1] == ' ' || end[-1] == '\r'))
			end--;
		snprintf(val, len, "%.*s", (int)(end - v), v);
		return 0;
	}
	return -ENOENT;
}

unsigned lp_ibdiag_max_width(const char *supported)
{
	unsigned best = 0;

	for (const char *p = supported; p && *p; p++) {
		char *end;
		unsigned long w;

		if (*p < '0' || *p > '9' || (p > supported && p[-1] >= '0' && p[-1] <= '9'))
			continue;
		w = strtoul(p, &end, 10);
		if (*end == 'X' && w > best && w <= 12)
			best = (unsigned)w;
	}
	return best;
}

const char *lp_ibdiag_max_speed(const char *sup, const char *ext, const char *ext2)
{
	/* lane signalling rates in libibmad's words, slowest first */
	static const struct {
		const char *rate, *name;
	} speeds[] = {
		{ "2.5 Gbps", "SDR" },	   { "5.0 Gbps", "DDR" },      { "10.0 Gbps", "QDR" },
		{ "14.0625 Gbps", "FDR" }, { "25.78125 Gbps", "EDR" }, { "53.125 Gbps", "HDR" },
		{ "106.25 Gbps", "NDR" },  { "212.5 Gbps", "XDR" },
	};
	const char *fields[] = { sup, ext, ext2 }, *best = NULL;

	for (size_t f = 0; f < 3; f++)
		for (size_t i = 0; fields[f] && i < sizeof(speeds) / sizeof(speeds[0]); i++) {
			const char *hit = strstr(fields[f], speeds[i].rate);

			/* "2.5 Gbps" must not match inside "212.5 Gbps" */
			if (hit && (hit == fields[f] || hit[-1] == ' '))
				best = speeds[i].name;
		}
	return best;
}

int lp_lldp_parse(const char *text, const char *ifname, struct lp_inv_peer *peer)
{
	static const char *const keys[] = { "chassis.name", "chassis.mac", "port.ifname",
					    "port.descr", "port.mac" };
	char vals[5][64] = { "" }, prefix[64];
	size_t pl = (size_t)snprintf(prefix, sizeof(prefix), "lldp.%s.", ifname);
	bool any = false;

	for (const char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		const char *eq = strchr(l, '='), *end = strchr(l, '\n');

		if (strncmp(l, prefix, pl) || !eq || (end && eq > end))
			continue;
		end = end ? end : eq + strlen(eq);
		for (size_t k = 0; k < 5; k++)
			if ((size_t)(eq - l) == pl + strlen(keys[k]) &&
			    !strncmp(l + pl, keys[k], strlen(keys[k]))) {
				snprintf(vals[k], sizeof(vals[k]), "%.*s", (int)(end - eq - 1),
					 eq + 1);
				any = true;
			}
	}
	if (!any)
		return -ENOENT;
	snprintf(peer->name, sizeof(peer->name), "%s", vals[0][0] ? vals[0] : vals[1]);
	snprintf(peer->guid, sizeof(peer->guid), "%s", vals[1]);
	snprintf(peer->port, sizeof(peer->port), "%s",
		 vals[2][0]   ? vals[2]
		 : vals[3][0] ? vals[3]
			      : vals[4]);
	snprintf(peer->source, sizeof(peer->source), "lldpctl");
	return 0;
}
