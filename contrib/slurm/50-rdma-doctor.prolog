#!/bin/sh
# /etc/slurm/prolog.d/50-rdma-doctor (Prolog=/etc/slurm/prolog.d/*; the same file serves as Epilog)
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
rdma-doctor --timeout 5 check --only modules.loaded,devnodes.present,ports.state,ports.rate,peermem.loaded,memlock.limit > /dev/null 2>&1
[ $? -ne 2 ]
