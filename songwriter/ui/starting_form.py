"""The form a new piece starts in: one that an installed model writes, so that Generate works
on a new piece. The last form the writer chose, else the usual form of the UI's language (七绝
in Chinese, a Shakespearean sonnet in English), each only when a model writes its language;
else the usual form of a language that has a model; with no model at all, the UI language's."""

from __future__ import annotations

from typing import Callable

from songwriter.forms import named_form
from songwriter.template import Template, TemplateError

USUAL_FORMS = {"zh": "七绝", "en": "Shakespearean sonnet"}
SETTING = "last_form"


def starting_template(ui_language: str, last_form: str, has_model: Callable[[str], bool]) -> Template:
    """The template of a new piece (see the module's docstring)."""
    own = "zh" if ui_language == "zh" else "en"
    other = "en" if own == "zh" else "zh"
    wanted = [last_form] if last_form else []
    wanted += [USUAL_FORMS[own], USUAL_FORMS[other]]
    for name in wanted:
        try:
            template = named_form(name)
        except TemplateError:       # a last form no longer in the library (or a stray setting)
            continue
        if has_model(template.lang):
            return template
    return named_form(USUAL_FORMS[own])
