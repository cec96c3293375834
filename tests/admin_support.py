"""Helpers for tests of the survey admin pages (the survey's change page with its question inlines)."""
from django import forms

from survey_app.models import Choice


def change_url(survey) -> str:
    return f"/admin/survey_app/survey/{survey.pk}/change/"


def page_data(response) -> dict:
    """The POST data of an admin change page as it was rendered (the survey form, every inline form and their
    management forms): a test changes what it needs and posts the rest unchanged."""
    context = response.context
    data, all_forms = {}, [context["adminform"].form]
    for inline in context["inline_admin_formsets"]:
        formset = inline.formset
        all_forms.extend(formset.initial_forms)  # the blank extra forms are left out
        management = formset.management_form
        for name in management.fields:
            data[management.add_prefix(name)] = management[name].value()
        data[management.add_prefix("TOTAL_FORMS")] = formset.initial_form_count()
    for form in all_forms:
        for field in form:
            value = field.value()
            if isinstance(field.field.widget, forms.MultiWidget):  # one input per part (translations)
                for part in field.field.widget.get_context(field.html_name, value, {})["widget"]["subwidgets"]:
                    data[part["name"]] = part["value"] or ""
            elif isinstance(field.field, forms.BooleanField):
                if value:
                    data[field.html_name] = "on"
            elif isinstance(field.field, forms.FileField):
                continue
            elif isinstance(value, list | tuple):
                data[field.html_name] = [str(v) for v in value]
            else:
                data[field.html_name] = "" if value is None else value
    return data


def question_form(data: dict, survey, name: str) -> str:
    """The inline prefix of question ``name`` on ``survey``'s page data (``questions-3``)."""
    pk = str(survey.questions.get(name=name).pk)
    return next(key[:-3] for key, value in data.items() if key.endswith("-id") and str(value) == pk)


def labels(survey, name: str) -> list[tuple[str, float | None]]:
    return [(c.label, c.personal_probability) for c in Choice.objects.filter(question__survey=survey,
                                                                           question__name=name)]
