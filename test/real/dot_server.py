"""A real OAuth 2.0 server for the end-to-end tests: django-oauth-toolkit (Debian's
python3-django-oauth-toolkit), token endpoint at /oauth/token, one confidential client with the
client-credentials grant, SQLite in memory.

    /usr/bin/python3 dot_server.py json|form CLIENT_ID CLIENT_SECRET

`json` uses the toolkit's JSONOAuthLibCore backend (an Auth0-style JSON body), `form` its default
backend (RFC 6749 form bodies). Prints one line, {"port": N}, once it listens on 127.0.0.1.
"""
import json
import sys
from wsgiref.simple_server import WSGIRequestHandler, make_server

import django
from django.conf import settings

mode, client_id, client_secret = sys.argv[1:4]
settings.configure(
    DEBUG=False,
    SECRET_KEY="test-only-not-secret",
    ALLOWED_HOSTS=["127.0.0.1", "localhost"],
    ROOT_URLCONF=__name__,
    INSTALLED_APPS=[
        "django.contrib.auth",
        "django.contrib.contenttypes",
        "oauth2_provider",
    ],
    MIDDLEWARE=[],
    DATABASES={"default": {"ENGINE": "django.db.backends.sqlite3", "NAME": ":memory:"}},
    DEFAULT_AUTO_FIELD="django.db.models.AutoField",
    USE_TZ=True,
    OAUTH2_PROVIDER={
        "OAUTH2_BACKEND_CLASS": "oauth2_provider.oauth2_backends.JSONOAuthLibCore"
        if mode == "json"
        else "oauth2_provider.oauth2_backends.OAuthLibCore",
        "ACCESS_TOKEN_EXPIRE_SECONDS": 3600,
        "SCOPES": {"read": "Read targets"},
        "DEFAULT_SCOPES": ["read"],
    },
)
django.setup()

from django.core.management import call_command  # noqa: E402
from django.core.wsgi import get_wsgi_application  # noqa: E402
from django.urls import path  # noqa: E402
from oauth2_provider.models import get_application_model  # noqa: E402
from oauth2_provider.views import TokenView  # noqa: E402

urlpatterns = [path("oauth/token", TokenView.as_view())]

call_command("migrate", verbosity=0, interactive=False)
Application = get_application_model()
Application.objects.create(
    name="m2m-action-test",
    client_id=client_id,
    client_secret=client_secret,
    client_type=Application.CLIENT_CONFIDENTIAL,
    authorization_grant_type=Application.GRANT_CLIENT_CREDENTIALS,
)


class QuietHandler(WSGIRequestHandler):
    def log_message(self, *args):
        pass


server = make_server("127.0.0.1", 0, get_wsgi_application(), handler_class=QuietHandler)
print(json.dumps({"port": server.server_port}), flush=True)
server.serve_forever()
