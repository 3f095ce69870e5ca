"""Google's own client for Identity Toolkit, google-api-python-client, built from the discovery documents it ships
(identitytoolkit v1, v2, v3) with its root URL pointed at Hearth, calls every in-scope method. Each must be a Firebase
answer: served (no 404 for an unknown route), no 5xx. Admin credentials are a real access token from Hearth's token
endpoint (the JWT-bearer grant of a Hearth service-account file), client methods also carry the API key."""
import json
import os

import httplib2
import pytest
import requests
from google.auth.transport import requests as google_requests
from google.oauth2 import service_account
from googleapiclient import discovery
from googleapiclient.errors import HttpError

from conftest import PROJECT

DOCUMENTS = os.path.join(os.path.dirname(discovery.__file__), "discovery_cache", "documents")
SCOPES = ["https://www.googleapis.com/auth/cloud-platform"]

# Methods Hearth does not serve, and why (docs/COMPATIBILITY.md says the same).
OUT_OF_SCOPE = {
    # Hearth is no SAML identity provider: it accepts SAML sign-ins (stored configs), it issues no assertions.
    "identitytoolkit.accounts.issueSamlResponse",
    # Turns Identity Platform on for a Google Cloud project: a Hearth project exists by configuration.
    "identitytoolkit.projects.identityPlatform.initializeAuth",
    # Cloud IAM policies on tenants: Hearth's admin access is its service-account keys (docs/SECURITY.md).
    "identitytoolkit.projects.tenants.getIamPolicy",
    "identitytoolkit.projects.tenants.setIamPolicy",
    "identitytoolkit.projects.tenants.testIamPermissions",
}


class Headers(httplib2.Http):
    """httplib2 adding fixed headers (the bearer token) to every request."""

    def __init__(self, headers):
        super().__init__(timeout=30)
        self.extra = headers

    def request(self, uri, method="GET", body=None, headers=None, **kwargs):
        return super().request(uri, method, body, {**(headers or {}), **self.extra}, **kwargs)


def methods(resource, path=()):
    for name, method in resource.get("methods", {}).items():
        yield path + (name,), method
    for name, child in resource.get("resources", {}).items():
        yield from methods(child, path + (name,))


def renamed_clashes(resource):
    """A method named like a nested resource (v1 `projects.accounts`, the Admin SDKs' createUser) is hidden by the
    resource in the library's objects; it is renamed `<name>_method` in the test's copy of the document."""
    for name in list(resource.get("methods", {})):
        if name in resource.get("resources", {}):
            resource["methods"][name + "_method"] = resource["methods"].pop(name)
    for child in resource.get("resources", {}).values():
        renamed_clashes(child)


def document(version):
    with open(os.path.join(DOCUMENTS, f"identitytoolkit.{version}.json")) as f:
        doc = json.load(f)
    renamed_clashes(doc)
    return doc


def path_value(name, parameter, tenant):
    """A value for a path parameter: the project, the test's tenant, and a config id that does not exist."""
    known = {"targetProjectId": PROJECT, "projectsId": PROJECT, "tenantId": tenant, "tenantsId": tenant}
    pattern = parameter.get("pattern")
    if not pattern:
        return known.get(name, "no-such-config")
    parts = pattern.strip("^$").replace("[^/]+", "*").split("/")
    values = []
    for i, part in enumerate(parts):
        if part != "*":
            values.append(part)
        else:
            values.append({"projects": PROJECT, "tenants": tenant}.get(parts[i - 1], "no-such-config"))
    return "/".join(values)


@pytest.fixture(scope="module")
def admin_token(hearth):
    creds = service_account.Credentials.from_service_account_file(hearth.service_account("discovery"), scopes=SCOPES)
    creds.refresh(google_requests.Request())
    return creds.token


@pytest.fixture
def tenant(hearth, admin_token):
    """A fresh tenant per call, since one of the methods walked is tenants.delete."""
    made = requests.post(f"{hearth.base}/v2/projects/{PROJECT}/tenants", json={"displayName": "discovery"},
                         headers={"Authorization": f"Bearer {admin_token}"}, timeout=10)
    assert made.ok, made.text
    return made.json()["name"].split("/")[-1]


def call(hearth, version, token, path, method, tenant):
    """Calls one method through the library; returns (status, error message or None)."""
    doc = document(version)
    host = "www.googleapis.com/" if version == "v3" else ""
    doc["rootUrl"] = f"{hearth.base}/{host}"
    doc["baseUrl"] = doc["rootUrl"] + doc["servicePath"]
    service = discovery.build_from_document(
        doc, http=Headers({"Authorization": f"Bearer {token}"}), developerKey="any-key")
    target = service
    for name in path[:-1]:
        target = getattr(target, name)()
    arguments = {}
    for name, parameter in method.get("parameters", {}).items():
        if parameter.get("location") != "path":
            continue
        arguments[name] = path_value(name, parameter, tenant)
    if "request" in method:
        arguments["body"] = {}
    try:
        getattr(target, path[-1])(**arguments).execute()
        return 200, None
    except HttpError as error:
        return error.status_code, json.loads(error.content)["error"]["message"]


def in_scope():
    for version in ["v1", "v2", "v3"]:
        for path, method in methods(document(version)):
            if method["id"] not in OUT_OF_SCOPE:
                yield pytest.param(version, path, method, id=method["id"] + f"[{version}]")


@pytest.mark.parametrize("version,path,method", list(in_scope()))
def test_every_in_scope_method_is_served(hearth, admin_token, tenant, version, path, method):
    status, message = call(hearth, version, admin_token, path, method, tenant)
    assert status < 500, (status, message)
    assert not (status == 404 and message == "Not Found"), f"{method['httpMethod']} {method['path']} is not served"


def test_the_clients_query_parameters_are_not_stored_in_a_config(hearth, admin_token):
    """The library adds `alt=json` to every call; a config created and patched through it keeps only its body."""
    doc = document("v2")
    doc["rootUrl"] = f"{hearth.base}/"
    doc["baseUrl"] = doc["rootUrl"] + doc["servicePath"]
    service = discovery.build_from_document(doc, http=Headers({"Authorization": f"Bearer {admin_token}"}))
    configs = service.projects().oauthIdpConfigs()
    parent = f"projects/{PROJECT}"
    configs.create(parent=parent, oauthIdpConfigId="oidc.discovery",
                   body={"clientId": "web", "issuer": "https://id.example", "enabled": True}).execute()
    configs.patch(name=f"{parent}/oauthIdpConfigs/oidc.discovery", updateMask="displayName",
                  body={"displayName": "Discovery"}).execute()
    stored = configs.get(name=f"{parent}/oauthIdpConfigs/oidc.discovery").execute()
    assert stored["displayName"] == "Discovery" and stored["clientId"] == "web"
    assert "alt" not in stored and "updateMask" not in stored, stored
    made = service.projects().tenants().create(parent=parent, body={"displayName": "altfree"}).execute()
    tenant_view = service.projects().tenants().get(name=made["name"]).execute()
    assert tenant_view["displayName"] == "altfree" and "alt" not in tenant_view, tenant_view
