#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
#
# lava-run, except that its job directory (lava_common.constants.
# DISPATCHER_DOWNLOAD_DIR, /var/lib/lava/dispatcher/tmp whatever
# --dispatcher says) is $LAVA_TMP: nothing is written outside the CI's own
# directories.
import os
import sys

import lava_common.constants as constants

constants.DISPATCHER_DOWNLOAD_DIR = os.environ["LAVA_TMP"]
from lava_dispatcher.runner import main  # noqa: E402 (after the change)

sys.exit(main())
