"""Downloads of the staff dashboard, one module per format (docs/dashboard.md, "Downloads"): ``reports_csv`` (every
stored report), and per published version ``scikit_learn``, ``frequencies_csv`` and ``frequencies_xlsx`` (the rows of
``frequencies``), ``model_card_markdown`` (the data of ``model_card``, which the HTML page shows too). ``registry``
lists the per-version formats once: the dashboard's URLs and download view are made from it."""
