"""python manage.py create_survey DATA.csv --slug S --mode ldp|mrr [--encoding E] [--epsilon E | --theta T]
[--class-column C] [--numeric COL ...] [--multi COL ...] [--ordered COL=A,B,C ...] [--access link|tokens] [--open]"""
from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError

from survey_app.credentials import active_key
from survey_app.models import Survey
from survey_app.services import create_survey_from_table, read_table
from survey_app.tables import parse_ordered


class Command(BaseCommand):
    help = "Create a draft survey whose questions come from a CSV table's columns (class column last by default)."

    def add_arguments(self, parser):
        parser.add_argument("csv", help="CSV file: one column per question, one header row")
        parser.add_argument("--slug", required=True)
        parser.add_argument("--title")
        parser.add_argument("--mode", choices=[m.value for m in Survey.Mode], default="ldp")
        parser.add_argument("--encoding", choices=[e.value for e in Survey.Encoding], default="adaptive")
        group = parser.add_mutually_exclusive_group()
        group.add_argument("--epsilon", type=float)
        group.add_argument("--theta", type=float)
        parser.add_argument("--class-column", help="the class column (default: the last)")
        parser.add_argument("--numeric", nargs="*", help="numeric columns (default: detected)")
        parser.add_argument("--multi", nargs="+", default=None, metavar="COL",
                            help="select-all columns: a cell lists the choices that apply, separated by \";\" "
                                 "(empty: none); each becomes one select-all question")
        parser.add_argument("--ordered", nargs="+", default=None, metavar="COL=A,B,C",
                            help="ordered columns with their values in order: an ordered scale (3 values or more)")
        parser.add_argument("--open", action="store_true", help="open the survey at once")
        parser.add_argument("--access", choices=[a.value for a in Survey.Access], default=Survey.Access.LINK,
                            help="link: anyone with the link; tokens: one-use invitations (manage.py invitations), "
                                 "redeemed for blind-signed credentials (a survey key is made now)")

    def handle(self, *args, **opts):
        if opts["mode"] == "mrr" and opts["epsilon"] is not None:
            raise CommandError("--epsilon applies to --mode ldp; MRR surveys take --theta")
        if opts["mode"] == "ldp" and opts["theta"] is not None:
            raise CommandError("--theta applies to --mode mrr; LDP surveys take --epsilon")
        try:
            table = read_table(opts["csv"], class_column=opts["class_column"], numeric=opts["numeric"],
                               multi=opts["multi"], ordered=parse_ordered(opts["ordered"]))
            survey = create_survey_from_table(
                table, slug=opts["slug"], title=opts["title"], mode=opts["mode"], encoding=opts["encoding"],
                epsilon=opts["epsilon"], theta=opts["theta"], open_now=opts["open"],
            )
        except FileNotFoundError:
            raise CommandError(f"no such file: {opts['csv']}") from None
        except ValidationError as exc:
            raise CommandError("; ".join(f"{k}: {' '.join(v)}" for k, v in exc.message_dict.items())) from None
        except ValueError as exc:
            raise CommandError(str(exc)) from None
        if opts["access"] != survey.access:
            survey.access = opts["access"]
            survey.save(update_fields=["access"])
        key = active_key(survey) if survey.access == Survey.Access.TOKENS else None
        self.stdout.write(self.style.SUCCESS(
            f"Created {survey.status} survey {survey.slug!r} with {survey.questions.count()} questions "
            f"({survey.mode}); " + (f"by invitation (key {key.key_id[:16]}…): manage.py invitations {survey.slug} "
                                    "--count N --out TOKENS.csv" if key else f"public link /s/{survey.slug}/")
        ))
