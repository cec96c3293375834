"""The dashboard's glossary in a real browser (issue 12 item 6): axe finds nothing serious on it (the same check as
tests/browser/test_accessibility.py), and a term's link on the survey list, with its tooltip, lands on its entry."""

from tests.browser.axe import assert_accessible, sign_in
from tests.browser_support import BROWSER_TEST
from tests.factories import make_survey

pytestmark = BROWSER_TEST


def test_the_glossary_has_no_serious_violation_and_the_terms_link_to_it(page, live_server):
    make_survey(mode="mrr")
    sign_in(page, live_server, "/dashboard/")
    term = page.locator("table.surveys thead a.term", has_text="PSE before / after mining")
    assert "larger is more private" in term.get_attribute("title")
    assert_accessible(page, "the survey list with its glossary links")
    term.click()
    page.wait_for_url("**/dashboard/glossary/#pse")
    assert page.locator("dt#pse").is_visible()
    assert "before mining" in page.locator("dt#pse + dd").inner_text().lower()
    assert_accessible(page, "the glossary")
