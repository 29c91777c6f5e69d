#!/usr/bin/env python3
"""Writes an irregular ibsim net file of vlink's tests from a seed (python3 irregular.py SEED NAME > NAME).

Switches of 8 to 16 ports on a random spanning tree plus random extra cables (some doubled), some switches two to a
chassis (one sysimgguid= line before each), 1- and 2-port HCAs on random switches (a 2-port HCA's ports on one switch,
on two, or its port 2 left uncabled), some HCAs two to a system. With SEED odd the file starts with an HCA, so ibsim
attaches the SM to a CA's port rather than a switch's port 0. The same seed always writes the same file."""
import random
import sys

seed, name = int(sys.argv[1]), sys.argv[2]
rnd = random.Random(seed)
nsw = rnd.randint(5, 9)
ports = [rnd.choice([8, 8, 12, 16]) for _ in range(nsw)]
free = [list(range(1, p + 1)) for p in ports]
links = []                                    # (a, pa, b, pb) over node names


def cable(a, b):
    ia, ib = int(a[1:]), int(b[1:])
    if not free[ia] or not free[ib]:
        return False
    pa = free[ia].pop(rnd.randrange(len(free[ia])))
    pb = free[ib].pop(rnd.randrange(len(free[ib])))
    links.append((a, pa, b, pb))
    return True


for s in range(1, nsw):                       # a random spanning tree
    cable("S%d" % rnd.randrange(s), "S%d" % s)
for _ in range(rnd.randint(nsw // 2, nsw)):   # extra cables, some doubled
    a, b = rnd.sample(range(nsw), 2)
    cable("S%d" % a, "S%d" % b)
    if rnd.random() < 0.3:
        cable("S%d" % a, "S%d" % b)
hcas = []
for h in range(rnd.randint(nsw, 2 * nsw)):
    n = rnd.choice([1, 2, 2])
    hcas.append(("H%d" % h, n))
hca_links = []
for h, n in hcas:
    sw = [i for i in range(nsw) if free[i]]
    a = rnd.choice(sw)
    pa = free[a].pop(rnd.randrange(len(free[a])))
    hca_links.append((h, 1, "S%d" % a, pa))
    if n == 2 and rnd.random() < 0.8:
        sw = [i for i in range(nsw) if free[i]]
        b = a if a in sw and rnd.random() < 0.4 else rnd.choice(sw)
        pb = free[b].pop(rnd.randrange(len(free[b])))
        hca_links.append((h, 2, "S%d" % b, pb))
chassis = {}
for s in range(0, nsw - 1, 3):                # switches s and s+1 share a chassis
    chassis["S%d" % s] = chassis["S%d" % (s + 1)] = 0x300000 + s
for i in range(0, len(hcas) - 1, 4):          # HCAs i and i+1 share a system
    chassis[hcas[i][0]] = chassis[hcas[i + 1][0]] = 0x400000 + i


def records():
    for s in range(nsw):
        yield "S%d" % s, "Switch", ports[s]
    for h, n in hcas:
        yield h, "Hca", n


def peers(node):
    for a, pa, b, pb in links + hca_links:
        if a == node:
            yield pa, b, pb
        if b == node:
            yield pb, a, pa


out = ["# %s: an irregular fabric written by irregular.py with seed %d (see ORIGINS.md beside it)" % (name, seed)]
nodes = list(records())
if seed % 2:
    nodes.insert(0, nodes.pop(nsw))           # an HCA first: the SM on a CA
for node, kind, n in nodes:
    out.append("")
    if node in chassis:
        out.append("sysimgguid=0x%x" % chassis[node])
    out.append('%s\t%d "%s"' % (kind, n, node))
    for p, b, pb in sorted(peers(node)):
        out.append('[%d]\t"%s"[%d]' % (p, b, pb))
print("\n".join(out))
