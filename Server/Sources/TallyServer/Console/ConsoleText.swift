/// The console's words in English and Ukrainian: one table, so that a key missing in one
/// language is a test failure rather than a blank on a page.
enum ConsoleText {
    /// A language the console speaks.
    enum Language: String, CaseIterable, Sendable {
        case en, uk
    }

    /// Every text of a language, by key, for the templates' `t.key`.
    static func table(_ language: Language) -> [String: String] {
        var table: [String: String] = [:]
        for (key, texts) in all { table[key] = language == .en ? texts.0 : texts.1 }
        return table
    }

    /// One text.
    static func text(_ key: String, _ language: Language) -> String {
        guard let texts = all[key] else { return key }
        return language == .en ? texts.0 : texts.1
    }

    static let all: [String: (String, String)] = [
        "nav_overview": ("Overview", "Огляд"),
        "nav_transactions": ("Transactions", "Транзакції"),
        "nav_ledger": ("Ledger", "Реєстр"),
        "nav_products": ("Products", "Продукти"),
        "nav_notifications": ("Notifications", "Сповіщення"),
        "nav_audit": ("Audit log", "Журнал дій"),
        "search": ("Find", "Знайти"),
        "search_label": ("Find a user or a purchase", "Знайти користувача чи покупку"),
        "search_placeholder": ("User, transaction, token or order id", "Користувач, транзакція, токен чи замовлення"),
        "read_only": ("read-only", "лише перегляд"),
        "sign_out": ("Sign out", "Вийти"),
        "sign_in": ("Sign in", "Увійти"),
        "sign_in_title": ("Sign in to the console", "Вхід до консолі"),
        "operator": ("Operator", "Оператор"),
        "operator_hint": (
            "Leave empty to sign in with the server's secret key.", "Залиште порожнім, щоб увійти із секретним ключем сервера."
        ),
        "password": ("Password or secret key", "Пароль або секретний ключ"),
        "sign_in_failed": ("The operator or the password is wrong.", "Неправильний оператор або пароль."),
        "signed_out": ("You are signed out.", "Ви вийшли."),
        "window": ("Window", "Період"),
        "show": ("Show", "Показати"),
        "window_1d": ("Last 24 hours", "Останні 24 години"),
        "window_7d": ("Last 7 days", "Останні 7 днів"),
        "window_30d": ("Last 30 days", "Останні 30 днів"),
        "window_90d": ("Last 90 days", "Останні 90 днів"),
        "purchases": ("Purchases", "Покупки"),
        "refunds": ("Refunds", "Повернення"),
        "verification_failures": ("Verification failures", "Невдалі перевірки"),
        "chart_label": ("Purchases and refunds per day", "Покупки й повернення за днями"),
        "revenue": ("Revenue by currency and storefront", "Виручка за валютою та вітриною"),
        "refunded": ("Refunded", "Повернено"),
        "ledger_movements": ("Credits granted and spent", "Нараховані та витрачені кредити"),
        "outstanding_debt": ("Outstanding debt", "Непогашений борг"),
        "currency": ("Currency", "Валюта"),
        "storefront": ("Storefront", "Вітрина"),
        "count": ("Count", "Кількість"),
        "amount": ("Amount", "Сума"),
        "users": ("Users", "Користувачі"),
        "source": ("Source", "Джерело"),
        "code": ("Code", "Код"),
        "none": ("None", "Немає"),
        "kind": ("Kind", "Вид"),
        "status": ("Status", "Стан"),
        "environment": ("Environment", "Середовище"),
        "product": ("Product", "Продукт"),
        "from": ("From", "Від"),
        "received_from": ("Received from", "Отримано від"),
        "received_to": ("Received to", "Отримано до"),
        "to": ("To", "До"),
        "user": ("User", "Користувач"),
        "search_text": ("Search", "Пошук"),
        "transactions_search_hint": ("Transaction, original, token, user or order id", "Транзакція, оригінал, токен, користувач чи замовлення"),
        "any": ("Any", "Будь-який"),
        "filter": ("Filter", "Фільтрувати"),
        "clear": ("Clear", "Скинути"),
        "export_csv": ("Export CSV", "Експорт CSV"),
        "transaction": ("Transaction", "Транзакція"),
        "original": ("Original transaction", "Початкова транзакція"),
        "price": ("Price", "Ціна"),
        "purchased": ("Purchased", "Куплено"),
        "no_rows": ("Nothing matches.", "Нічого не знайдено."),
        "first_page": ("First page", "Перша сторінка"),
        "next_page": ("Next page", "Наступна сторінка"),
        "time": ("Time (UTC)", "Час (UTC)"),
        "bucket": ("Bucket", "Кошик"),
        "reference": ("Reference", "Примітка"),
        "user_id": ("User id", "Id користувача"),
        "app_user_id": ("App's user id", "Id користувача в застосунку"),
        "app_account_token": ("App account token", "Токен облікового запису"),
        "created": ("Created", "Створено"),
        "transactions_of_user": ("Their transactions", "Їхні транзакції"),
        "ledger_of_user": ("Their ledger", "Їхній реєстр"),
        "balances": ("Balances", "Баланси"),
        "available": ("Available", "Доступно"),
        "held": ("Held", "Утримано"),
        "debt": ("Debt", "Борг"),
        "allowance": ("Allowance", "Ліміт підписки"),
        "spendable": ("Spendable", "Можна витратити"),
        "entitlements": ("Entitlements", "Доступи"),
        "entitlement": ("Entitlement", "Доступ"),
        "active": ("Active", "Діє"),
        "expires": ("Expires", "Спливає"),
        "subscriptions": ("Subscriptions", "Підписки"),
        "will_renew": ("Will renew", "Поновиться"),
        "granted_entitlements": ("Granted by operators", "Надані операторами"),
        "until": ("Until", "До"),
        "reason": ("Reason", "Причина"),
        "granted_by": ("Granted by", "Надав"),
        "revoked": ("Revoked", "Відкликано"),
        "revoke": ("Revoke", "Відкликати"),
        "adjust_title": ("Adjust a balance", "Змінити баланс"),
        "adjust": ("Adjust", "Змінити"),
        "grant_title": ("Grant an entitlement", "Надати доступ"),
        "grant": ("Grant", "Надати"),
        "timeline": ("Timeline", "Хронологія"),
        "bundle_id": ("Bundle id", "Bundle id"),
        "environments": ("Environments", "Середовища"),
        "currencies": ("Currencies", "Валюти"),
        "grants": ("Grants", "Нараховує"),
        "paywall": ("Paywall", "Пейвол"),
        "outcome": ("Outcome", "Результат"),
        "received": ("Received (UTC)", "Отримано (UTC)"),
        "type": ("Type", "Тип"),
        "detail": ("Detail", "Подробиці"),
        "notifications_refused": (
            "Refused in the last 30 days because they did not verify", "Відхилено за останні 30 днів, бо не пройшли перевірку"
        ),
        "signed": ("Signed (UTC)", "Підписано (UTC)"),
        "payload": ("Signed payload", "Підписаний вміст"),
        "actor": ("Who", "Хто"),
        "action": ("Action", "Дія"),
        "target": ("Target", "Об'єкт"),
        "before": ("Before", "До"),
        "after": ("After", "Після"),
        "back": ("Back", "Назад"),
        "yes": ("yes", "так"),
        "no": ("no", "ні"),
        "user_title": ("User", "Користувач"),
        "notification_title": ("Notification", "Сповіщення"),
        "error_title": ("Something is wrong", "Щось не так"),
        "adjusted": ("The balance was adjusted.", "Баланс змінено."),
        "adjust_replayed": (
            "This adjustment was made before; nothing changed.", "Цю зміну вже було зроблено; нічого не змінилося."
        ),
        "granted": ("The entitlement was granted.", "Доступ надано."),
        "grant_replayed": ("This grant was made before; nothing changed.", "Цей доступ вже було надано; нічого не змінилося."),
        "revoked_notice": ("The entitlement was revoked.", "Доступ відкликано."),
        "forbidden_read_only": ("A read-only operator cannot change anything.", "Оператор із правом перегляду нічого не може змінювати."),
        "csrf_refused": (
            "The form was refused: it did not come from this console's page (reload the page and try again).",
            "Форму відхилено: вона надіслана не зі сторінки цієї консолі (оновіть сторінку й спробуйте ще раз)."
        ),
        "not_found": ("There is nothing here.", "Тут нічого немає."),
        "amount_invalid": (
            "The amount must be a whole number other than 0, such as 10 or -5.", "Сума має бути цілим числом, відмінним від 0, як-от 10 чи -5."
        ),
        "date_invalid": ("A date must be written as YYYY-MM-DD.", "Дату слід писати як РРРР-ММ-ДД."),
        "filter_invalid": ("A filter is not valid", "Фільтр недійсний"),
        "unavailable": ("The database did not answer; try again.", "База даних не відповіла; спробуйте ще раз."),
        "input_invalid": ("The input is not valid", "Введені дані недійсні"),
        "currency_unknown": ("There is no such currency in the catalog.", "У каталозі немає такої валюти."),
        "key_invalid": ("The form is incomplete; reload the page.", "Форма неповна; оновіть сторінку."),
        "key_reused": (
            "This form was already used for a different change; reload the page.",
            "Цю форму вже використано для іншої зміни; оновіть сторінку."
        ),
        "rate_limited": ("Too many attempts; wait a minute.", "Забагато спроб; зачекайте хвилину."),
        "busy": ("The server is busy signing others in; try again.", "Сервер зайнятий входом інших; спробуйте ще раз."),
        "kind_purchase": ("Purchase", "Покупка"),
        "kind_refund": ("Refund or revocation", "Повернення чи відкликання"),
        "kind_notification": ("App Store notification", "Сповіщення App Store"),
        "kind_ledger": ("Ledger", "Реєстр"),
        "kind_grant": ("Entitlement granted", "Надано доступ"),
        "kind_revoke": ("Entitlement revoked", "Відкликано доступ"),
        "kind_signup": ("Signed up", "Реєстрація"),
        "status_granted": ("granted", "нараховано"),
        "status_revoked": ("revoked", "відкликано"),
        "status_refunded": ("refunded", "повернено"),
        "status_unbound": ("no user yet", "ще без користувача"),
    ]
}
