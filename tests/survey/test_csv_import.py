"""The CSV import as a designer meets it: the delimiter is found (comma, semicolon, tab), a file saved by a
spreadsheet in Windows-1252 is read, and every refusal is one clear sentence in the page's language, naming the column
or row at fault; nothing is guessed silently (an identifier column, a duplicated or empty header, padded answers)."""
import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.utils import translation

from survey_app.models import Survey
from survey_app.services import read_table

pytestmark = pytest.mark.django_db

ROWS = [("u", "cat", "no"), ("w", "dog", "yes"), ("u", "dog", "no"), ("w", "cat", "yes"), ("u", "cat", "yes"),
        ("w", "dog", "no")]


def csv_text(header=("colour", "pet", "sick"), rows=ROWS, sep=",") -> str:
    return "".join(sep.join(cells) + "\n" for cells in [header, *rows])


def upload(admin_client, content: bytes, slug="imported", language=None):
    headers = {"HTTP_ACCEPT_LANGUAGE": language} if language else {}
    file = SimpleUploadedFile("table.csv", content, content_type="text/csv")
    return admin_client.post("/admin/survey_app/survey/import/",
                             {"csv_file": file, "slug": slug, "mode": "ldp", "encoding": "oue"}, **headers)


def refusal(admin_client, content: bytes, language=None) -> str:
    """The page's error text for an upload that must be refused (and store nothing)."""
    response = upload(admin_client, content, language=language)
    assert response.status_code == 200, "a refused upload shows the form again"
    assert not Survey.objects.filter(slug="imported").exists()
    errors = response.context["form"].non_field_errors()
    assert len(errors) == 1, errors
    return errors[0]


def read(content: bytes, **options):
    return read_table(SimpleUploadedFile("t.csv", content), **options)


# -- delimiter and encoding ------------------------------------------------------------------------------------------

@pytest.mark.parametrize("sep", [";", "\t", ","])
def test_the_delimiter_is_found(sep):
    table = read(csv_text(sep=sep).encode())
    assert [a.name for a in table.attributes] == ["colour", "pet"] and table.class_attribute.name == "sick"


def test_a_semicolon_file_with_decimal_commas_is_read(admin_client):
    rows = [(f"{i},5", "cat" if i % 2 else "dog", "yes" if i % 3 else "no") for i in range(12)]
    response = upload(admin_client, csv_text(("size", "pet", "sick"), rows, sep=";").encode())
    assert response.status_code == 302
    assert [q.name for q in Survey.objects.get(slug="imported").questions.all()] == ["size", "pet", "sick"]


def test_a_windows_1252_file_is_read():
    table = read(csv_text(("Größe", "pet", "sick"), [(("grün", "rot")[i % 2], p, s) for i, (_, p, s)
                                                     in enumerate(ROWS)]).encode("cp1252"))
    assert table.attributes[0].name == "Größe" and table.attributes[0].values == ("grün", "rot")


def test_a_utf8_file_with_a_byte_order_mark_is_read():
    table = read(b"\xef\xbb\xbf" + csv_text().encode())
    assert table.attributes[0].name == "colour"


def test_a_spreadsheet_file_is_refused_in_plain_words(admin_client):
    message = refusal(admin_client, b"PK\x03\x04\x14\x00\x06\x00" + bytes(range(256)))
    assert "CSV" in message and "codec" not in message and "0x" not in message


def test_a_single_column_says_which_delimiters_were_tried(admin_client):
    message = refusal(admin_client, b"colour|pet|sick\n" + b"".join(b"u|cat|no\n" for _ in range(4)))
    assert "comma" in message and "semicolon" in message and "“colour|pet|sick”" in message


def test_a_row_with_too_many_cells_is_named_not_a_tokenizer_error(admin_client):
    content = csv_text().encode() + b"u,cat,no,extra\n"
    message = refusal(admin_client, content)
    assert "C error" not in message and "tokeniz" not in message.lower()
    assert "8" in message and "4" in message and "3" in message  # row 8 of the file has 4 cells, the header 3


def test_messages_are_in_german_for_a_german_page(admin_client):
    message = refusal(admin_client, csv_text().encode() + b"u,cat,no,extra\n", language="de")
    assert "Zeile" in message
    message = refusal(admin_client, b"a|b\n1|2\n", language="de")
    assert "Spalte" in message


# -- nothing accepted silently ---------------------------------------------------------------------------------------

def test_an_identifier_column_is_refused_naming_it(admin_client):
    rows = [(f"R{i:05d}", ("u", "w")[i % 2], ("no", "yes")[i % 3 == 0]) for i in range(3000)]
    message = refusal(admin_client, csv_text(("respondent", "colour", "sick"), rows).encode())
    assert "“respondent”" in message and "3000" in message.replace(",", "").replace("\u202f", "")


def test_a_numbered_identifier_column_is_refused_too(admin_client):
    rows = [(str(i), ("u", "w")[i % 2], ("no", "yes")[i % 3 == 0]) for i in range(1, 101)]
    message = refusal(admin_client, csv_text(("id", "colour", "sick"), rows).encode())
    assert "“id”" in message


def test_distinct_measurements_stay_a_numeric_question():
    rows = [(f"{(i * 37) % 101 + 0.5}", ("u", "w")[i % 2], ("no", "yes")[i % 3 == 0]) for i in range(100)]
    table = read(csv_text(("size", "colour", "sick"), rows).encode())
    assert table.numeric_indices == [0]


def test_a_duplicated_header_is_refused_naming_it(admin_client):
    message = refusal(admin_client, csv_text(("pet", "pet", "sick")).encode())
    assert "“pet”" in message
    assert not Survey.objects.exists()


def test_an_empty_header_is_refused_naming_its_place(admin_client):
    message = refusal(admin_client, csv_text(("", "pet", "sick")).encode())
    assert "Unnamed" not in message and "1" in message


def test_answers_are_stripped_of_surrounding_spaces():
    rows = [(" u ", " cat", "no "), ("u", "cat ", "yes"), ("w ", "dog", "no"), (" w", " dog ", "yes")]
    table = read(csv_text((" colour ", "pet", "sick"), rows).encode())
    assert table.attributes[0].name == "colour"
    assert table.attributes[0].values == ("u", "w") and table.attributes[1].values == ("cat", "dog")
    assert table.class_attribute.values == ("no", "yes")


def test_an_empty_file_and_a_header_without_rows_are_explained(admin_client):
    with pytest.raises(ValueError, match="empty"):  # (the upload form refuses an empty file by itself)
        read(b" \n\n")
    assert "no rows of answers" in refusal(admin_client, b"colour,pet,sick\n")


def test_an_unknown_class_column_is_named_in_german():
    with translation.override("de"), pytest.raises(ValueError) as info:
        read(csv_text().encode(), class_column="nope")
    assert "„nope“" in str(info.value) and "Spalte" in str(info.value) and "colour, pet, sick" in str(info.value)
