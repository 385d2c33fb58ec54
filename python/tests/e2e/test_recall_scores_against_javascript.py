"""Recall scores are shown as JavaScript's toFixed(4) shows them, on 3000 generated values
compared with Node's (tests/test_recall.py pins the cases named one by one)."""

from __future__ import annotations

import json
import random
import subprocess

from hms_memory_tool.core import format_score
from tests.support.servers import node


def test_scores_match_javascripts_to_fixed_on_many_values() -> None:
    rng = random.Random(5)
    scores = [rng.uniform(-50, 50) for _ in range(1000)]
    scores += [rng.randrange(-(10**6), 10**6) / 20000 for _ in range(1000)]  # ties and near-ties
    scores += [rng.random() * 10 ** rng.randrange(-8, 12) for _ in range(1000)]
    script = "const xs = JSON.parse(require('fs').readFileSync(0, 'utf8'));"
    script += "process.stdout.write(JSON.stringify(xs.map((x) => x.toFixed(4))));"
    completed = subprocess.run(
        [node(), "-e", script], input=json.dumps(scores).encode(), capture_output=True, check=True
    )
    assert [format_score(x) for x in scores] == json.loads(completed.stdout)
