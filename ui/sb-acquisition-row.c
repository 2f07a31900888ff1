/* sb-acquisition-row.c — the New Experiment dialog's acquisition
 * drop-down: its model holds the engine's names of the acquisitions
 * offered, its rows show each one's label with its source as tooltip. */
#include "config.h"

#include "sb-acquisition-row.h"

#include <glib/gi18n.h>

/* What a person reads for each engine acquisition (sg-bo.h; the sources
 * as `skewgp bo --help` lists them). */
static const struct {
  const char *label;
  const char *tooltip;
} texts[SG_BO_ACQ_LAST + 1] = {
  [SG_BO_ACQ_UCB] = { N_("Dueling UCB"),
                      N_("Upper end of the 95% credible interval of the improvement over the "
                         "current best (Benavoli et al., paper 001 sec. 5.2.1); the default for "
                         "5 or more parameters, in mixed mode and with the Gaussian surrogates") },
  [SG_BO_ACQ_EIIG] = { N_("EIIG (improvement + information gain)"),
                       N_("Expected improvement plus information gain (Benavoli et al., "
                          "paper 001 sec. 5.2.1)") },
  [SG_BO_ACQ_EPI] = { N_("Expected probability of improvement"),
                      N_("The probability of beating the current best (Benavoli et al., "
                         "paper 001)") },
  [SG_BO_ACQ_THOMPSON] = { N_("Thompson sample of the improvement"),
                           N_("One posterior sample of the improvement over the current best "
                              "(paper 001's code)") },
  [SG_BO_ACQ_QEUBO] = { N_("qEUBO (every option free)"),
                        N_("The expected utility of the best option shown, all options chosen "
                           "freely (Astudillo et al., AISTATS 2023)") },
  [SG_BO_ACQ_HB_EI] = { N_("Hallucination believer EI"),
                        N_("The current best against the EI maximiser of the model given one "
                           "posterior sample of the duels (Takeno et al., ICML 2023); exact "
                           "SkewGP only") },
  [SG_BO_ACQ_HB_UCB] = { N_("Hallucination believer UCB"),
                         N_("The current best against the UCB maximiser of the model given one "
                            "posterior sample of the duels (Takeno et al., ICML 2023); exact "
                            "SkewGP only; the default for preference duels of up to 4 parameters, "
                            "chosen by the published benchmark protocols") },
  [SG_BO_ACQ_DTS] = { N_("Dueling Thompson sampling"),
                      N_("A posterior sample's maximiser against the setting whose win "
                         "probability is most uncertain (González et al., ICML 2017)") },
  [SG_BO_ACQ_MUC] = { N_("Maximally uncertain challenge"),
                      N_("The current best against the setting whose win probability is most "
                         "uncertain (Fauvel & Chalk 2021)") },
};

const char *
sb_acquisition_row_tooltip (sg_bo_acquisition acq)
{
  return (guint) acq <= SG_BO_ACQ_LAST ? _(texts[acq].tooltip) : "";
}

/* The acquisition of ITEM, a GtkStringObject holding an engine name. */
static sg_bo_acquisition
item_acquisition (gpointer item)
{
  sg_bo_acquisition acq = SG_BO_ACQ_UCB;

  if (GTK_IS_STRING_OBJECT (item))
    sg_bo_acquisition_parse (gtk_string_object_get_string (item), &acq);
  return acq;
}

static void
setup_row (GtkSignalListItemFactory *factory, GtkListItem *item, gpointer user_data)
{
  GtkWidget *label = gtk_label_new (NULL);

  gtk_label_set_xalign (GTK_LABEL (label), 0);
  gtk_list_item_set_child (item, label);
}

static void
bind_row (GtkSignalListItemFactory *factory, GtkListItem *item, gpointer user_data)
{
  sg_bo_acquisition acq = item_acquisition (gtk_list_item_get_item (item));
  GtkWidget *label = gtk_list_item_get_child (item);

  gtk_label_set_text (GTK_LABEL (label), _(texts[acq].label));
  gtk_widget_set_tooltip_text (label, sb_acquisition_row_tooltip (acq));
}

/* The acquisition the user last chose (or sb_acquisition_row_select
 * set): selected again whenever it is offered. -1: none. */
static const char wanted_key[] = "sb-acquisition-wanted";
/* Set while sb_acquisition_row_offer changes the selection itself. */
static const char offering_key[] = "sb-acquisition-offering";

static int
wanted (GtkDropDown *dropdown)
{
  return GPOINTER_TO_INT (g_object_get_data (G_OBJECT (dropdown), wanted_key)) - 1;
}

static void
set_wanted (GtkDropDown *dropdown, sg_bo_acquisition acq)
{
  g_object_set_data (G_OBJECT (dropdown), wanted_key, GINT_TO_POINTER ((int) acq + 1));
}

/* The drop-down itself says what its selection is; a selection the user
 * makes is the one wanted from then on. */
static void
selection_changed (GtkDropDown *dropdown)
{
  gpointer item = gtk_drop_down_get_selected_item (dropdown);

  if (item != NULL && g_object_get_data (G_OBJECT (dropdown), offering_key) == NULL)
    set_wanted (dropdown, item_acquisition (item));

  gtk_widget_set_tooltip_text (GTK_WIDGET (dropdown),
                               item ? sb_acquisition_row_tooltip (item_acquisition (item)) : NULL);
}

void
sb_acquisition_row_init (GtkDropDown *dropdown)
{
  g_autoptr (GtkListItemFactory) factory = gtk_signal_list_item_factory_new ();
  g_autoptr (GtkStringList) empty = gtk_string_list_new (NULL);

  g_signal_connect (factory, "setup", G_CALLBACK (setup_row), NULL);
  g_signal_connect (factory, "bind", G_CALLBACK (bind_row), NULL);
  gtk_drop_down_set_factory (dropdown, factory);
  gtk_drop_down_set_model (dropdown, G_LIST_MODEL (empty));
  g_signal_connect (dropdown, "notify::selected", G_CALLBACK (selection_changed), NULL);
}

/* The row of ACQ in DROPDOWN's model, or GTK_INVALID_LIST_POSITION. */
static guint
row_of (GtkDropDown *dropdown, sg_bo_acquisition acq)
{
  GListModel *model = gtk_drop_down_get_model (dropdown);
  guint n = model ? g_list_model_get_n_items (model) : 0;

  for (guint i = 0; i < n; i++)
    {
      g_autoptr (GObject) item = g_list_model_get_item (model, i);
      if (item_acquisition (item) == acq)
        return i;
    }
  return GTK_INVALID_LIST_POSITION;
}

void
sb_acquisition_row_offer (GtkDropDown *dropdown, SbMode mode, SbAskKind question,
                          sg_bo_surrogate surrogate, guint dim)
{
  g_autoptr (GtkStringList) names = gtk_string_list_new (NULL);
  GListModel *old = gtk_drop_down_get_model (dropdown);
  sg_bo_question kind = question == SB_ASK_DUEL ? SG_BO_QUESTION_DUEL : SG_BO_QUESTION_CHOICE;
  sg_bo_acquisition fallback = sg_bo_default_acquisition ((sg_bo_mode) mode, kind, surrogate, dim);
  gboolean same;

  for (int a = 0; a <= SG_BO_ACQ_LAST; a++)
    if (question == SB_ASK_DUEL ? sb_acquisition_fits (mode, surrogate, a, NULL)
                                : a == SG_BO_ACQ_QEUBO)
      gtk_string_list_append (names, sg_bo_acquisition_name (a));
  same = old != NULL && g_list_model_get_n_items (old) == g_list_model_get_n_items (G_LIST_MODEL (names));
  for (guint i = 0; same && i < g_list_model_get_n_items (old); i++)
    {
      g_autoptr (GObject) item = g_list_model_get_item (old, i);
      same = g_str_equal (gtk_string_object_get_string (GTK_STRING_OBJECT (item)),
                          gtk_string_list_get_string (names, i));
    }
  /* the same rows and a choice of the user's: nothing changes (without
   * one, the default may follow the number of parameters) */
  if (same && wanted (dropdown) >= 0)
    return;
  g_object_set_data (G_OBJECT (dropdown), offering_key, GINT_TO_POINTER (1));
  if (!same)
    gtk_drop_down_set_model (dropdown, G_LIST_MODEL (names));
  if (row_of (dropdown, wanted (dropdown)) != GTK_INVALID_LIST_POSITION)
    gtk_drop_down_set_selected (dropdown, row_of (dropdown, wanted (dropdown)));
  else if (row_of (dropdown, fallback) != GTK_INVALID_LIST_POSITION)
    gtk_drop_down_set_selected (dropdown, row_of (dropdown, fallback));
  else
    gtk_drop_down_set_selected (dropdown, 0);
  selection_changed (dropdown);
  g_object_set_data (G_OBJECT (dropdown), offering_key, NULL);
}

gboolean
sb_acquisition_row_select (GtkDropDown *dropdown, sg_bo_acquisition acq)
{
  guint row = row_of (dropdown, acq);

  set_wanted (dropdown, acq);
  if (row == GTK_INVALID_LIST_POSITION)
    return FALSE;
  gtk_drop_down_set_selected (dropdown, row);
  return TRUE;
}

sg_bo_acquisition
sb_acquisition_row_selected (GtkDropDown *dropdown)
{
  return item_acquisition (gtk_drop_down_get_selected_item (dropdown));
}
