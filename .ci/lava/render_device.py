#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
#
# Renders a LAVA device dictionary into the device YAML lava-run --device
# takes, as lava-server does: device-type templates from Debian's
# lava-server package, the job's "context" as template variables.
#
# Usage: render_device.py DEVICE.jinja2 TEMPLATES_DIR JOB.yaml >device.yaml
import os
import sys

import jinja2
import yaml
from lava_common.jinja import create_device_templates_env

devdict, templates, job = sys.argv[1:4]
with open(job) as f:
    context = (yaml.safe_load(f) or {}).get("context", {})
env = create_device_templates_env(loader=jinja2.FileSystemLoader(
    [os.path.dirname(os.path.abspath(devdict)), templates]))
out = env.get_template(os.path.basename(devdict)).render(**context)
yaml.safe_load(out)
sys.stdout.write(out)
