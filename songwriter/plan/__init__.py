"""Per-line planning: a topic becomes one keyword per line, from the corpus's own co-occurrence
statistics (docs/plan.md). No Qt, no torch, no numpy at run time (the builder, ``plan.build``,
uses numpy)::

    stats = load_stats("models/zh/plan.json")
    propose_plan(stats, "明月 故乡", 4, seed=1)        # one keyword per line, scene before feeling
    propose_line(stats, "明月 故乡", plan, 2)          # other keywords for line 3
"""

from songwriter.plan.planner import propose_line, propose_plan, topic_words
from songwriter.plan.stats import PLAN_FILE, PlanError, PlanStats, load_stats

__all__ = ["PLAN_FILE", "PlanError", "PlanStats", "load_stats", "propose_line", "propose_plan", "topic_words"]
