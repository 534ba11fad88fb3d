#!/usr/bin/env python3
"""Read-only forensic view of a QEMU 7.2 virtio-net + stream netdev (helper virtio).
Reads /proc/PID/mem (no stop, no write): the tx/rx VirtQueue structs, VirtIONetQueue, the stream
NetClientState/NetStreamState and the NetQueues, plus the rings in guest memory."""
import re, struct, sys
pid = int(sys.argv[1]); sockpath = sys.argv[2].encode()
maps = []
for ln in open(f"/proc/{pid}/maps"):
    f = ln.split()
    a, b = (int(x, 16) for x in f[0].split("-"))
    maps.append((a, b, f[1], f[5] if len(f) > 5 else ""))
mem = open(f"/proc/{pid}/mem", "rb", 0)
def rd(addr, n):
    mem.seek(addr); return mem.read(n)
def u(fmt, addr):
    return struct.unpack(fmt, rd(addr, struct.calcsize(fmt)))
def cstr(addr):
    try: return rd(addr, 64).split(b"\0")[0].decode(errors="replace")
    except Exception: return "?"
ram = [m for m in maps if m[1] - m[0] >= 512 << 20 and m[2].startswith("rw") and m[3] == ""]
ram_base = ram[0][0]
print(f"guest RAM mapping at {ram_base:#x} size {(ram[0][1]-ram[0][0])>>20} MiB")
def gpa(a): return ram_base + a
heaps = [m for m in maps if m[2].startswith("rw") and (m[3] in ("", "[heap]")) and m not in ram and m[1]-m[0] < 256 << 20]
def scan(pat):
    hits = []
    for a, b, _, _ in heaps:
        try: data = rd(a, b - a)
        except Exception: continue
        for m in re.finditer(re.escape(pat), data):
            hits.append(a + m.start())
    return hits
# VirtQueues of 256 entries
vqs = {}
for h in scan(struct.pack("<III", 256, 256, 4096)):
    desc, avail, used = u("<QQQ", h + 16)
    if not (0 < desc < 512 << 20 and 0 < avail < 512 << 20): continue
    last_avail, = u("<H", h + 56); shadow, = u("<H", h + 60); used_idx, = u("<H", h + 64)
    sig, = u("<H", h + 68); sigv, notif = u("<BB", h + 70); qi, = u("<H", h + 72); inuse, = u("<I", h + 76)
    g_avail, = u("<H", gpa(avail) + 2); g_used, = u("<H", gpa(used) + 2)
    used_event, = u("<H", gpa(avail) + 4 + 2 * 256); avail_event, = u("<H", gpa(used) + 4 + 8 * 256)
    g_aflags, = u("<H", gpa(avail)); g_uflags, = u("<H", gpa(used))
    vqs[h] = qi
    print(f"VirtQueue@{h:#x} queue_index={qi} desc={desc:#x} avail={avail:#x} used={used:#x} | QEMU: last_avail_idx={last_avail} "
          f"shadow_avail_idx={shadow} used_idx={used_idx} signalled_used={sig} valid={sigv} notification={notif} inuse={inuse} "
          f"| guest memory: avail.idx={g_avail} avail.flags={g_aflags} used_event={used_event} used.idx={g_used} used.flags={g_uflags} avail_event={avail_event}")
# VirtIONetQueue: rx_vq*, tx_vq*, tx_timer*, tx_bh*, tx_waiting, async_tx.elem, n
rx = [h for h, q in vqs.items() if q == 0]; tx = [h for h, q in vqs.items() if q == 1]
for r in rx:
    for t in tx:
        for h in scan(struct.pack("<QQ", r, t)):
            timer, bh = u("<QQ", h + 16); waiting, = u("<I", h + 32); elem, n = u("<QQ", h + 40)
            print(f"VirtIONetQueue@{h:#x} tx_timer={timer:#x} tx_bh={bh:#x} tx_waiting={waiting} async_tx.elem={elem:#x} n={n:#x}")
            if waiting > 1 or (elem and not 0x550000000000 < elem < 0x7fffffffffff):
                print("   (a freed chunk, not the live queue)"); continue
            if elem:
                # VirtQueueElement: index(u32) len(u32) ndescs(u32) out_num(u32) in_num(u32) ...
                idx, ln, nd, out_num, in_num = u("<IIIII", elem)
                print(f"   held element: head index {idx}, out_num {out_num}, in_num {in_num}")
            if bh:
                # QEMUBH (7.2 util/async.c): ctx*, name*, cb*, opaque*, next(QSLIST 8), flags(u32), reentrancy_guard*
                ctx, name, cb, opq, nxt, flags = u("<QQQQQI", bh)
                print(f"   tx_bh: name={cstr(name)!r} flags={flags:#x} (BH_PENDING=1 BH_SCHEDULED=2 BH_ONESHOT=4 BH_IDLE=8)")
def queue(addr):
    opaque, maxlen, count, deliver = u("<QIIQ", addr)
    first, = u("<Q", addr + 24); delivering, = u("<I", addr + 40)
    return f"NetQueue@{addr:#x} nq_maxlen={maxlen} nq_count={count} first_packet={first:#x} delivering={delivering & 1}"
for h in scan(b"unix:" + sockpath + b"\0"):
    nc = h - 64
    info, link_down = u("<QI", nc); peer, iq, model, name = u("<QQQQ", nc + 32)
    if cstr(name) not in ("n0",): continue
    rdis, = u("<I", nc + 320)
    print(f"stream NetClientState@{nc:#x} name={cstr(name)!r} model={cstr(model)!r} info_str={cstr(h)!r} link_down={link_down} receive_disabled={rdis & 1}")
    print("   its incoming queue (guest tx waiting for the socket):", queue(iq))
    lio, lis, ioc = u("<QQQ", nc + 376); rtag, wtag = u("<II", nc + 400)
    st, idx, plen = u("<III", nc + 408); send_index, = u("<I", nc + 70072)
    print(f"   NetStreamState: ioc={ioc:#x} ioc_read_tag={rtag} ioc_write_tag={wtag} rs.state={st} rs.index={idx} rs.packet_len={plen} send_index={send_index}")
    pinfo, plink = u("<QI", peer); ppeer, piq, pmodel, pname = u("<QQQQ", peer + 32); prdis, = u("<I", peer + 320)
    print(f"peer NetClientState@{peer:#x} name={cstr(pname)!r} model={cstr(pmodel)!r} link_down={plink} receive_disabled={prdis & 1}")
    print("   its incoming queue (frames from the switch waiting for the guest):", queue(piq))
