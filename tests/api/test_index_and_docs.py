"""The API's front page (/api/) lists every operation of the schema and links to the reference; the
reference (/api/docs/, Swagger UI) loads everything it needs from this site, nothing from a CDN."""

from __future__ import annotations

from html.parser import HTMLParser
from urllib.parse import urljoin, urlsplit

import pytest
from django.test import Client
from drf_spectacular.generators import SchemaGenerator

pytestmark = pytest.mark.django_db

WRITES = {
    "/api/studies/create/",
    "/api/studies/{study_id}/status/",
    "/api/studies/{study_id}/model-runs/start/",
    "/api/studies/{study_id}/model-runs/{run_id}/cancel/",
    "/api/studies/{study_id}/participants/{pseudonym}/exclusion/",
}


class References(HTMLParser):
    """Every `src` and `href` of a page."""

    def __init__(self) -> None:
        super().__init__()
        self.urls: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.urls += [value for name, value in attrs if name in {"src", "href"} and value]


def references(html: str) -> list[str]:
    parser = References()
    parser.feed(html)
    return parser.urls


def test_the_index_lists_every_operation_of_the_schema_and_links_to_the_docs():
    response = Client().get("/api/", HTTP_ACCEPT="application/json")
    assert response.status_code == 200
    index = response.json()
    assert (index["docs"], index["schema"]) == ("http://testserver/api/docs/", "http://testserver/api/schema/")
    assert "Authorization: Token" in index["authentication"]
    schema = SchemaGenerator().get_schema(request=None, public=True)["paths"]
    listed = {row["path"]: row for row in index["endpoints"]}
    assert set(listed) == set(schema)
    for path, operations in schema.items():
        assert sorted(listed[path]["methods"]) == sorted(method.upper() for method in operations), path
    assert {path for path, row in listed.items() if "POST" in row["methods"]} == WRITES
    assert listed["/api/studies/"]["url"] == "http://testserver/api/studies/"
    assert "url" not in listed["/api/studies/{study_id}/status/"]


def test_the_index_is_browsable_too():
    page = Client().get("/api/", HTTP_ACCEPT="text/html")
    assert page.status_code == 200 and "/api/docs/" in page.content.decode()


def test_the_schema_describes_each_write_with_its_bodies_and_errors():
    schema = SchemaGenerator().get_schema(request=None, public=True)
    paths, components = schema["paths"], schema["components"]["schemas"]
    create = paths["/api/studies/create/"]["post"]
    assert set(create["responses"]) == {"201", "400", "401", "403", "429"}
    assert create["requestBody"]["content"]["application/json"]["schema"]["$ref"].endswith("StudyCreateInput")
    assert {"name", "benchmark"} == set(components["StudyCreateInput"]["required"])
    status = paths["/api/studies/{study_id}/status/"]["post"]
    assert set(status["responses"]) == {"200", "400", "401", "403", "404", "409", "429"}
    assert components["StudyStatusInput"]["properties"]["status"]["$ref"].endswith("StatusEnum")
    assert "changed" in components["StudyStatusChange"]["properties"]
    start = paths["/api/studies/{study_id}/model-runs/start/"]["post"]
    assert {"200", "201", "400", "404"} <= set(start["responses"])
    assert "created" in components["StartedModelRun"]["properties"]
    cancel = paths["/api/studies/{study_id}/model-runs/{run_id}/cancel/"]["post"]
    assert set(cancel["responses"]) == {"200", "401", "403", "404", "409", "429"}  # it reads no body: no 400
    assert "requestBody" not in cancel


def test_the_docs_page_loads_swagger_ui_from_this_site_only():
    client = Client()
    page = client.get("/api/docs/")
    assert page.status_code == 200 and page["Content-Type"].startswith("text/html")
    urls = references(page.content.decode())
    scripts = [url for url in urls if url.endswith(".js") or "script" in url]
    assert any("swagger-ui-bundle" in url for url in scripts) and any("?script" in url for url in urls)
    assert any(url.endswith(".css") for url in urls)
    for url in urls:
        absolute = urljoin("http://testserver/api/docs/", url)
        assert urlsplit(absolute).netloc == "testserver", f"{url} is on another host"
        assert url.startswith("/"), url
        assert client.get(url).status_code == 200, url


def test_the_docs_script_reads_the_local_schema_and_sends_nothing_to_a_validator():
    script = Client().get("/api/docs/?script").content.decode()
    assert 'url: "/api/schema/"' in script
    assert '"validatorUrl": null' in script
    assert "http://" not in script and "https://" not in script
