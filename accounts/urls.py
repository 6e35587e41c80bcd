from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_not_required
from django.urls import path

from accounts import views

app_name = "accounts"
urlpatterns = [
    path("login/", views.LoginView.as_view(), name="login"),
    path("login/link/<str:token>/", views.login_link, name="login-link"),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("users/", views.user_list, name="user-list"),
    path("users/<int:pk>/", views.user_manage, name="user-manage"),
    path("password/", views.PasswordChangeView.as_view(), name="password-change"),
    path(
        "password/done/", auth_views.PasswordChangeDoneView.as_view(), name="password-change-done"
    ),
    path("password/reset/", views.PasswordResetView.as_view(), name="password-reset"),
    path(
        "password/reset/sent/",
        login_not_required(auth_views.PasswordResetDoneView.as_view()),
        name="password-reset-done",
    ),
    path(
        "password/reset/<uidb64>/<token>/",
        views.PasswordResetConfirmView.as_view(),
        name="password-reset-confirm",
    ),
    path(
        "password/reset/complete/",
        login_not_required(auth_views.PasswordResetCompleteView.as_view()),
        name="password-reset-complete",
    ),
]
