from django.urls import path

from accounts import views

app_name = "accounts"
urlpatterns = [
    path("login/", views.LoginView.as_view(), name="login"),
    path("login/link/<str:token>/", views.login_link, name="login-link"),
    path("logout/", views.LogoutView.as_view(), name="logout"),
    path("users/", views.user_list, name="user-list"),
    path("users/<int:pk>/", views.user_manage, name="user-manage"),
    path("password/", views.PasswordChangeView.as_view(), name="password-change"),
    path("password/done/", views.PasswordChangeDoneView.as_view(), name="password-change-done"),
    path("password/reset/", views.PasswordResetView.as_view(), name="password-reset"),
    path("password/reset/sent/", views.PasswordResetDoneView.as_view(), name="password-reset-done"),
    path(
        "password/reset/<uidb64>/<token>/",
        views.PasswordResetConfirmView.as_view(),
        name="password-reset-confirm",
    ),
    path(
        "password/reset/complete/",
        views.PasswordResetCompleteView.as_view(),
        name="password-reset-complete",
    ),
]
