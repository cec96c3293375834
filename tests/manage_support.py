"""Shared by the management API's tests (tests/survey/test_manage_api.py, tests/survey/test_ohttp_gateway.py): a
designer's token client and a survey to create."""
from django.contrib.auth.models import Permission, User
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

COMMUTE = {"slug": "commute", "title": "Getting to work", "mode": "ldp", "epsilon": 1.0, "encoding": "oue",
           "questions": [{"name": "mode", "text": "How do you get to work?", "kind": "categorical",
                          "choices": ["Walk", "Bike", "Bus or train", "Car"]},
                         {"name": "late", "text": "Were you late this week?", "kind": "binary", "is_class": True}]}


def designer(name="alice", perms=("add", "change", "view")) -> APIClient:
    user = User.objects.create_user(name, is_staff=True)
    user.user_permissions.set(Permission.objects.filter(codename__in=[f"{p}_survey" for p in perms]))
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=user).key}")
    return client
